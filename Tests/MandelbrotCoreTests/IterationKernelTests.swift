import Deadline
import MandelbrotCore
import Testing

/// Runs `kernel` over one row and returns the counts and smooth values.
func countRow(
    _ kernel: IterationKernel, realParts: [Double], imaginary: Double, limit: Int, julia: JuliaConstant? = nil
) -> ([UInt32], [Float]) {
    var counts = [UInt32](repeating: 0, count: realParts.count)
    var smooth = [Float](repeating: 0, count: realParts.count)
    _ = realParts.withUnsafeBufferPointer { reals in
        kernel.countRow(
            realParts: reals.baseAddress!, imaginary: imaginary, count: reals.count, limit: limit,
            counts: &counts, smooth: &smooth, julia: julia)
    }
    return (counts, smooth)
}

/// Runs `kernel` over one row for its counts alone: without smooth values the vector
/// kernel may let z run free past the escape (on 256-bit vectors), a loop of its own.
func countsOnly(
    _ kernel: IterationKernel, realParts: [Double], imaginary: Double, limit: Int, julia: JuliaConstant? = nil
) -> [UInt32] {
    var counts = [UInt32](repeating: 0, count: realParts.count)
    _ = realParts.withUnsafeBufferPointer { reals in
        kernel.countRow(
            realParts: reals.baseAddress!, imaginary: imaginary, count: reals.count, limit: limit,
            counts: &counts, smooth: nil, julia: julia)
    }
    return counts
}

@Suite("IterationKernel")
struct IterationKernelTests {
    /// Views chosen to cross the boundary, the cardioid's edge, the bulb's edge and the antenna.
    static let views: [(Double, Double, Double, Int)] = [
        (-0.5, 0, 1, 256),
        (-0.743643887, 0.131825904, 300, 2000),
        (0.25, 0, 50, 1000),  // the cusp: the cardioid shortcut's hardest edge
        (-0.75, 0.1, 20, 5000),  // the neck between cardioid and bulb
        (-1.25, 0, 8, 500),  // the period-2 bulb's rim
        (-1.9999, 0, 1000, 3000),  // the antenna near −2, where |z|² sits at 4
        (-0.1, 0.65, 40, 4000),
        (0.3, 0.5, 2, 100),
        (3, 3, 0.1, 30),  // far outside: |c| > 2
        (0, 0, 1e-9, 20),  // |c| up to 1e9: every orbit escapes at once and its z is huge
    ]

    @Test("SIMD counts, with and without smooth values, equal the scalar reference on every pixel", arguments: views)
    func simdMatchesScalar(cx: Double, cy: Double, zoom: Double, limit: Int) {
        // 101 columns: three full groups of 32 and a ragged tail of 5.
        let grid = SampleGrid(
            size: ImageSize(width: 101, height: 41), viewport: Viewport(centerReal: cx, centerImaginary: cy, zoom: zoom)
        )
        for imaginary in grid.imaginaryParts {
            let scalar = countRow(.scalar, realParts: grid.realParts, imaginary: imaginary, limit: limit)
            let simd = countRow(.simd, realParts: grid.realParts, imaginary: imaginary, limit: limit)
            #expect(simd.0 == scalar.0)
            #expect(simd.1 == scalar.1)
            #expect(countsOnly(.simd, realParts: grid.realParts, imaginary: imaginary, limit: limit) == scalar.0)
        }
    }

    @Test(
        "every count equals EscapeTime.count, for row lengths around either vector width",
        arguments: [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65])
    func raggedRows(width: Int) {
        let grid = SampleGrid(
            size: ImageSize(width: width, height: 9),
            viewport: Viewport(centerReal: -0.6, centerImaginary: 0.3, zoom: 2))
        for imaginary in grid.imaginaryParts {
            let (counts, _) = countRow(.simd, realParts: grid.realParts, imaginary: imaginary, limit: 300)
            let expected = grid.realParts.map { UInt32(EscapeTime.count(real: $0, imaginary: imaginary, limit: 300)) }
            #expect(counts == expected)
            #expect(countsOnly(.simd, realParts: grid.realParts, imaginary: imaginary, limit: 300) == expected)
        }
    }

    @Test("points deep in the cardioid and the bulb are in the set, with or without the shortcut")
    func shortcutRegions() {
        let reals = [0.0, -0.5, 0.2, -1.0, -1.1, -0.9, 0.24]
        for kernel in IterationKernel.allCases {
            let (counts, _) = countRow(kernel, realParts: reals, imaginary: 0, limit: 10_000)
            #expect(counts.allSatisfy { $0 == 10_000 }, "\(kernel)")
        }
    }
}

@Suite("Benchmarks Game preset")
struct BenchmarksGameTests {
    /// The task's own loop, transcribed literally (Tr/Ti form).
    static func inSet(x: Int, y: Int, n: Int) -> Bool {
        let cr = 2 * Double(x) / Double(n) - 1.5
        let ci = 2 * Double(y) / Double(n) - 1
        var zr = 0.0
        var zi = 0.0
        var tr = 0.0
        var ti = 0.0
        var i = 0
        while i < 50 && tr + ti <= 4 {
            zi = 2 * zr * zi + ci
            zr = tr - ti + cr
            tr = zr * zr
            ti = zi * zi
            i += 1
        }
        return tr + ti <= 4
    }

    @Test("the preset's pixels match the task's own loop", arguments: [1, 37, 200])
    func matchesTask(n: Int) async throws {
        let job = RenderJob(
            size: ImageSize(width: n, height: n), region: .benchmarksGame, iterations: 50, colorScheme: .bw)
        let (canvas, report) = try await withDeadline(
            waitingFor: "serial rendering \(job.size.width)x\(job.size.height)"
        ) {
            try await PictureRender.render(job, with: SerialStrategy())
        }
        var mismatches = 0
        var usefulIterations: UInt64 = 0
        for y in 0..<n {
            for x in 0..<n {
                let black = canvas.pixel(x: x, y: y).first == 0
                if black != Self.inSet(x: x, y: y, n: n) { mismatches += 1 }
            }
        }
        for y in 0..<n {
            let ci = 2 * Double(y) / Double(n) - 1
            for x in 0..<n {
                usefulIterations += UInt64(
                    min(50, EscapeTime.count(real: 2 * Double(x) / Double(n) - 1.5, imaginary: ci, limit: 51)))
            }
        }
        #expect(mismatches == 0)
        #expect(report.totalIterations == usefulIterations)
    }
}
