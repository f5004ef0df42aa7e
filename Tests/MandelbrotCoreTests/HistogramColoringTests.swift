import MandelbrotCore
import Testing

@Suite("Histogram colouring")
struct HistogramColoringTests {
    /// Black at the start of the gradient to white at its end: a pixel's gray level is its position in the palette.
    static let ramp = Palette(
        stops: [
            Palette.Stop(position: 0, red: 0, green: 0, blue: 0),
            Palette.Stop(position: 0.999_999, red: 255, green: 255, blue: 255),
        ],
        cycle: 64)

    /// The gray levels of the escaped pixels of a histogram render of `viewport`.
    static func escapedLevels(_ viewport: Viewport, iterations: Int, supersampling: Int = 1) async throws -> [UInt8] {
        let job = RenderJob(
            size: ImageSize(width: 240, height: 160), region: .view(viewport), iterations: iterations,
            colorScheme: .histogram, palette: ramp, supersampling: supersampling)
        let plain = RenderJob(size: job.size, region: job.region, iterations: iterations, colorScheme: .bw)
        let inSet = try await serialCanvas(plain)
        let canvas = try await serialCanvas(job)
        var levels: [UInt8] = []
        for y in 0..<job.size.height {
            for x in 0..<job.size.width {
                let rgb = Array(canvas.pixel(x: x, y: y))
                if inSet.pixel(x: x, y: y).first == 0 && supersampling == 1 {
                    #expect(rgb == [0, 0, 0], "the set stays black")
                } else {
                    levels.append(rgb[0])
                }
            }
        }
        return levels
    }

    @Test(
        "uses the full palette, evenly, whatever the iteration count",
        arguments: [
            (Viewport.whole, 100),
            (Viewport.whole, 5_000),
            (Viewport(centerReal: -0.743643887, centerImaginary: 0.131825904, zoom: 3_000), 2_000),
        ])
    func fullPaletteEvenly(viewport: Viewport, iterations: Int) async throws {
        let levels = try await Self.escapedLevels(viewport, iterations: iterations)
        #expect(levels.count > 1000)
        #expect(levels.min()! <= 2, "the fastest escapes take the palette's first colour")
        #expect(levels.max()! >= 253, "the slowest escapes take its last colour")
        // Eight equal stretches of the palette each get close to an eighth of the pixels.
        var stretches = [Int](repeating: 0, count: 8)
        for level in levels { stretches[Int(level) / 32] += 1 }
        for (index, pixels) in stretches.enumerated() {
            let share = Double(pixels) / Double(levels.count)
            #expect((0.125 * 0.5...0.125 * 1.5).contains(share), "stretch \(index) holds \(share) of the pixels")
        }
    }

    @Test("smooth colouring, by contrast, crowds most pixels into a few colours")
    func smoothIsUneven() async throws {
        let job = RenderJob(
            size: ImageSize(width: 240, height: 160), iterations: 5_000, colorScheme: .smooth,
            palette: Self.ramp.with(cycle: 5_000, offset: 0))
        let canvas = try await serialCanvas(job)
        var darkest = 0
        for y in 0..<160 { for x in 0..<240 where canvas.pixel(x: x, y: y).first! < 32 { darkest += 1 } }
        #expect(Double(darkest) / Double(240 * 160) > 0.5, "the comparison the histogram test relies on")
    }

    @Test("supersampled histogram colouring still spans the palette")
    func supersampled() async throws {
        let levels = try await Self.escapedLevels(.whole, iterations: 300, supersampling: 2)
        #expect(levels.min()! <= 2)
        #expect(levels.max()! >= 250)
    }
}
