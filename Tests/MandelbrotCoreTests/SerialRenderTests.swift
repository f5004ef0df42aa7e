import Deadline
import Dispatch
import Foundation
import MandelbrotCore
import Testing

/// A render written out plainly from the documented convention, sharing no code with the core.
func referenceCounts(
    width: Int, height: Int, centerReal: Double, centerImaginary: Double, zoom: Double, limit: Int
) -> [Int] {
    let s = 3 / (zoom * Double(min(width, height)))
    var counts: [Int] = []
    for y in 0..<height {
        for x in 0..<width {
            let re = centerReal + (Double(x) + 0.5 - Double(width) / 2) * s
            let im = centerImaginary - (Double(y) + 0.5 - Double(height) / 2) * s
            var zr = 0.0
            var zi = 0.0
            var k = 0
            while k < limit {
                if zr * zr + zi * zi > 4 { break }
                let newZi = 2 * zr * zi + im
                zr = zr * zr - zi * zi + re
                zi = newZi
                k += 1
            }
            counts.append(k)
        }
    }
    return counts
}

/// Renders `job` with the serial strategy and returns the canvas.
func serialCanvas(_ job: RenderJob) async throws -> PixelBuffer {
    let (canvas, _) = try await withDeadline(waitingFor: "serial rendering \(job.size.width)x\(job.size.height)") {
        try await PictureRender.render(job, with: SerialStrategy())
    }
    return canvas
}

@Suite("Serial render")
struct SerialRenderTests {
    @Test(
        "bw pixels match a plain reference, pixel for pixel",
        arguments: [
            (37, 23, -0.5, 0.0, 1.0, 64),
            (40, 40, -0.743643887, 0.131825904, 200.0, 500),
            (1, 1, 0.0, 0.0, 1.0, 10),
            (64, 3, 0.3, -0.5, 4.0, 100),
        ])
    func bwMatchesReference(width: Int, height: Int, cx: Double, cy: Double, zoom: Double, limit: Int) async throws {
        let job = RenderJob(
            size: ImageSize(width: width, height: height),
            region: .view(Viewport(centerReal: cx, centerImaginary: cy, zoom: zoom)),
            iterations: limit, colorScheme: .bw, tileSize: TileSize(width: 16, height: 16))
        let canvas = try await serialCanvas(job)
        let expected = referenceCounts(
            width: width, height: height, centerReal: cx, centerImaginary: cy, zoom: zoom, limit: limit)
        var mismatches = 0
        for y in 0..<height {
            for x in 0..<width {
                let wanted: UInt8 = expected[y * width + x] == limit ? 0 : 255
                if canvas.pixel(x: x, y: y).first != wanted { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("gray shades darken with the count and the set is black")
    func grayLevels() async throws {
        let limit = 50
        let job = RenderJob(size: ImageSize(width: 30, height: 20), iterations: limit, colorScheme: .gray)
        let canvas = try await serialCanvas(job)
        let expected = referenceCounts(
            width: 30, height: 20, centerReal: -0.5, centerImaginary: 0, zoom: 1, limit: limit)
        for (index, count) in expected.enumerated() {
            let level = canvas.pixel(x: index % 30, y: index / 30).first!
            let wanted = count == limit ? 0 : UInt8(255 - (Double(count) * 255 / Double(limit)).rounded(.down))
            #expect(level == wanted)
        }
    }

    /// Palettes for the smooth test, by name: two named ones with other cycles and offsets,
    /// and uneven stops with the first above 0 (a position below it wraps from the last stop).
    static let smoothPalettes: [String: Palette] = [
        "classic": .classic,
        "fire, cycle 7.3, offset 0.37": Palette.named[1].palette.with(cycle: 7.3, offset: 0.37),
        "rainbow, cycle 0.001": Palette.named[5].palette.with(cycle: 0.001, offset: 0),
        "uneven stops from 0.3": Palette(
            stops: [
                .init(position: 0.3, red: 250, green: 0, blue: 9), .init(position: 0.35, red: 0, green: 255, blue: 1),
                .init(position: 0.9, red: 17, green: 4, blue: 200),
            ], cycle: 10),
    ]

    @Test(
        "smooth colouring paints the set black and every other pixel its smooth value's colour in the palette",
        arguments: smoothPalettes.keys.sorted())
    func smooth(paletteName: String) async throws {
        let palette = Self.smoothPalettes[paletteName]!
        // 101 columns: whole groups of eight pixels and a ragged tail, both ways of colouring.
        let limit = 300
        let size = ImageSize(width: 101, height: 23)
        let viewport = Viewport(centerReal: -0.7, centerImaginary: 0.25, zoom: 3)
        let job = RenderJob(
            size: size, region: .view(viewport), iterations: limit, colorScheme: .smooth, palette: palette)
        let canvas = try await serialCanvas(job)
        let grid = SampleGrid(size: size, viewport: viewport)
        var wrong: [String] = []
        for (y, imaginary) in grid.imaginaryParts.enumerated() {
            let (counts, smooth) = countRow(.scalar, realParts: grid.realParts, imaginary: imaginary, limit: limit)
            for x in 0..<size.width {
                let color = palette.color(at: Double(smooth[x]) / palette.cycle)
                let wanted = counts[x] == limit ? [0, 0, 0] : [color.red, color.green, color.blue]
                let got = Array(canvas.pixel(x: x, y: y))
                if got != wanted { wrong.append("(\(x), \(y)): \(got), not \(wanted)") }
            }
        }
        let differing = wrong.count
        #expect(differing == 0, "first \(wrong.first ?? "")")
    }

    @Test("the iteration total is the sum of the counts")
    func iterationTotal() async throws {
        let job = RenderJob(size: ImageSize(width: 33, height: 17), iterations: 80, colorScheme: .bw)
        let (_, report) = try await withDeadline(waitingFor: "serial rendering \(job.size.width)x\(job.size.height)") {
            try await PictureRender.render(job, with: SerialStrategy())
        }
        let expected = referenceCounts(width: 33, height: 17, centerReal: -0.5, centerImaginary: 0, zoom: 1, limit: 80)
        #expect(report.totalIterations == UInt64(expected.reduce(0, +)))
        #expect(report.tiles.allSatisfy { $0.isFinished })
    }
}

@Suite("Supersampling")
struct SupersamplingTests {
    @Test("a uniform region supersampled equals the plain render", arguments: ColorScheme.allCases)
    func uniformRegion(color: ColorScheme) async throws {
        // Far outside the set every sample escapes at once: one colour everywhere.
        var job = RenderJob(
            size: ImageSize(width: 20, height: 12),
            region: .view(Viewport(centerReal: 10, centerImaginary: 10, zoom: 50)),
            iterations: 50, colorScheme: color)
        let plain = try await serialCanvas(job)
        job.supersampling = 3
        let supersampled = try await serialCanvas(job)
        // Supersampled black and white is stored as gray (its averages are grays), so compare values.
        #expect(supersampled.format == (color == .bw ? .gray : plain.format))
        let values = { (canvas: PixelBuffer) in
            (0..<12).flatMap { y in (0..<20).flatMap { x in canvas.pixel(x: x, y: y) } }
        }
        #expect(values(supersampled) == values(plain))
    }

    @Test(
        "k×k supersampling is the picture rendered k times larger, averaged by the test in linear light",
        arguments: ColorScheme.allCases, [2, 3])
    func averagedLargerPicture(color: ColorScheme, k: Int) async throws {
        // Sides that are not multiples of eight or of the kernel's groups, across the set's edge.
        let (width, height) = (37, 23)
        let region = RenderJob.Region.view(Viewport(centerReal: -0.7, centerImaginary: 0.25, zoom: 3))
        var job = RenderJob(
            size: ImageSize(width: width, height: height), region: region, iterations: 300, colorScheme: color)
        job.supersampling = k
        let supersampled = try await serialCanvas(job)
        let larger = try await serialCanvas(
            RenderJob(
                size: ImageSize(width: width * k, height: height * k), region: region, iterations: 300,
                colorScheme: color))
        // sRGB to linear light and back, by the standard's formulas, written out here.
        func linear(_ value: UInt8) -> Double {
            let encoded = Double(value) / 255
            return encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
        }
        func encoded(_ light: Double) -> Double {
            (light <= 0.0031308 ? 12.92 * light : 1.055 * pow(light, 1 / 2.4) - 0.055) * 255
        }
        var wrong: [String] = []
        var blended = 0
        for y in 0..<height {
            for x in 0..<width {
                let got = Array(supersampled.pixel(x: x, y: y))
                for channel in got.indices {
                    var light = 0.0
                    for sy in 0..<k {
                        for sx in 0..<k { light += linear(Array(larger.pixel(x: x * k + sx, y: y * k + sy))[channel]) }
                    }
                    let wanted = encoded(light / Double(k * k))
                    // Within rounding: the two sums may round an exact half differently.
                    if abs(Double(got[channel]) - wanted) > 0.5 + 1e-9 {
                        wrong.append("(\(x), \(y)) channel \(channel): \(got[channel]), not \(wanted)")
                    }
                }
                let samples = (0..<k).flatMap { sy in
                    (0..<k).map { sx in Array(larger.pixel(x: x * k + sx, y: y * k + sy)) }
                }
                if Set(samples).count > 1 { blended += 1 }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) values differ; first \(wrong.first ?? "")")
        #expect(blended > width * height / 20, "only \(blended) pixels mix samples of different colours")
    }

    @Test("edges blend: a supersampled bw picture has grays only where the set's edge crosses a pixel")
    func edgesBlend() async throws {
        var job = RenderJob(size: ImageSize(width: 48, height: 32), iterations: 100, colorScheme: .bw)
        let plain = try await serialCanvas(job)
        job.supersampling = 4
        let smooth = try await serialCanvas(job)
        var grays = 0
        var flips = 0
        for y in 0..<32 {
            for x in 0..<48 {
                let value = smooth.pixel(x: x, y: y).first!
                if value != 0 && value != 255 { grays += 1 }
                if (value == 0 && plain.pixel(x: x, y: y).first == 255)
                    || (value == 255 && plain.pixel(x: x, y: y).first == 0)
                {
                    flips += 1
                }
            }
        }
        #expect(grays > 0)
        #expect(grays < 48 * 32 / 4, "only edge pixels are gray")
        #expect(flips < 48 * 32 / 50, "pure black or white pixels mostly agree with the plain render")
    }
}
