import Foundation
import MandelbrotCore
import PropertyBased
import Testing

/// The vector kernel against the scalar reference, for inputs drawn at random: the rule is that
/// they agree on every pixel, whatever the view, the limit, the row's length and where in its
/// vector lanes and bytes a pixel falls.
@Suite("Kernel properties")
struct KernelPropertyTests {
    /// Points on the set's edge, where orbits are long and chaotic, so that any difference in how
    /// a step is computed changes some count: the seahorse and elephant valleys, a spiral, a
    /// minibrot's neighbourhood and the needle.
    static let edges: [(Double, Double)] = [
        (-0.745, 0.113), (0.275, 0.006), (-0.743_644_786, 0.131_825_253_6), (-0.101_1, 0.956_3), (-1.768_8, 0.001_7),
    ]

    /// A row of `length` samples across a view centred `(dx, dy)` hundredths away from edge point
    /// `edge` (or anywhere, for the last index), 2^depth times narrower than the whole set, with the
    /// sample in `lane` swapped for one from elsewhere on the edge, so that neighbouring lanes
    /// escape at very different steps.
    static func row(
        edge: Int, dx: Double, dy: Double, depth: Int, length: Int, lane: Int
    ) -> (reals: [Double], imaginary: Double) {
        let scale = 0.01 / pow(2, Double(depth))
        let (re, im) =
            edge < edges.count ? (edges[edge].0 + dx * scale, edges[edge].1 + dy * scale) : (-0.7 + 1.5 * dx, 1.3 * dy)
        let step = 3.0 / Double(length) / pow(2, Double(depth))
        var row = (0..<length).map { re + Double($0 - length / 2) * step }
        row[lane % length] = edges[lane % edges.count].0
        return (row, im)
    }

    @Test("counts and smooth values: the vector kernel gives the scalar one's on random rows")
    func countsAndSmooth() async {
        await propertyCheck(
            count: 150, input: zip(Gen.int(in: 0...5), Gen.double(in: -1...1), Gen.double(in: -1...1)),
            Gen.int(in: 0...40),
            Gen.int(in: 1...3000), Gen.int(in: 1...70), Gen.int(in: 0...69)
        ) { view, depth, limit, length, lane in
            let (row, imaginary) = Self.row(
                edge: view.0, dx: view.1, dy: view.2, depth: depth, length: length, lane: lane)
            let reference = countRow(.scalar, realParts: row, imaginary: imaginary, limit: limit)
            let vector = countRow(.simd, realParts: row, imaginary: imaginary, limit: limit)
            #expect(vector.0 == reference.0, "counts")
            #expect(vector.1 == reference.1, "smooth values")
            #expect(countsOnly(.simd, realParts: row, imaginary: imaginary, limit: limit) == reference.0, "counts only")
        }
    }

    /// A narrow tile's rows share the vector kernel's lanes (`countSamples`): each sample keeps its own
    /// imaginary part, so a group holds several rows, and every lane must still count as the scalar kernel.
    @Test("samples of several rows packed into the lanes: the scalar kernel's counts and smooth values")
    func packedRows() async {
        await propertyCheck(
            count: 150, input: zip(Gen.int(in: 0...5), Gen.double(in: -1...1), Gen.double(in: -1...1)),
            Gen.int(in: 0...40), Gen.int(in: 1...3000), zip(Gen.int(in: 1...31), Gen.int(in: 1...9)),
            Gen.int(in: 0...63)
        ) { view, depth, limit, shape, lane in
            // `rows` rows of `width` samples, each row a step further up, so that neighbouring rows' orbits differ.
            let (width, rows) = shape
            let (row, imaginary) = Self.row(
                edge: view.0, dx: view.1, dy: view.2, depth: depth, length: width, lane: lane)
            let step = 3.0 / Double(width) / pow(2, Double(depth))
            let reals = (0..<rows).flatMap { _ in row }
            let imaginaries = (0..<rows).flatMap { r in [Double](repeating: imaginary + Double(r) * step, count: width)
            }
            let julia = lane % 3 == 2 ? JuliaConstant(real: row[width / 2], imaginary: imaginary) : nil
            for kernel in IterationKernel.allCases {
                var counts = [UInt32](repeating: 0, count: reals.count)
                var smooth = [Float](repeating: 0, count: reals.count)
                var countsAlone = [UInt32](repeating: 0, count: reals.count)
                let total = kernel.countSamples(
                    realParts: reals, imaginaryParts: imaginaries, count: reals.count, limit: limit, counts: &counts,
                    smooth: &smooth, julia: julia)
                kernel.countSamples(
                    realParts: reals, imaginaryParts: imaginaries, count: reals.count, limit: limit,
                    counts: &countsAlone, smooth: nil, julia: julia)
                let reference = (0..<rows).map { r in
                    countRow(.scalar, realParts: row, imaginary: imaginaries[r * width], limit: limit, julia: julia)
                }
                #expect(counts == reference.flatMap(\.0), "\(kernel) counts, \(width)x\(rows)")
                #expect(smooth == reference.flatMap(\.1), "\(kernel) smooth values, \(width)x\(rows)")
                #expect(countsAlone == counts, "\(kernel) counts without smooth values")
                #expect(total == counts.reduce(0) { $0 + UInt64($1) }, "\(kernel) iterations")
            }
        }
    }

    /// A machine runs one of the vector kernel's two loops where no smooth value is wanted (z
    /// running free with 256-bit vectors, frozen at the escape with 512-bit ones): each is held
    /// to the scalar counts on every machine, for the Mandelbrot set and a Julia set.
    @Test("both vector loops, z frozen and z running free, give the scalar counts on random groups")
    func bothLoops() async {
        await propertyCheck(
            count: 150, input: zip(Gen.int(in: 0...5), Gen.double(in: -1...1), Gen.double(in: -1...1)),
            Gen.int(in: 0...40), Gen.int(in: 1...3000), Gen.int(in: 1...IterationKernel.vectorGroupWidth),
            Gen.int(in: 0...63)
        ) { view, depth, limit, length, lane in
            let (row, imaginary) = Self.row(
                edge: view.0, dx: view.1, dy: view.2, depth: depth, length: length, lane: lane)
            // The Julia set of the constant at the row's middle, every other case.
            let julia = lane % 2 == 1 ? JuliaConstant(real: row[length / 2], imaginary: imaginary) : nil
            let reference = row.map { real in
                UInt32(
                    julia.map {
                        EscapeTime.count(
                            startReal: real, startImaginary: imaginary, real: $0.real, imaginary: $0.imaginary,
                            limit: limit)
                    } ?? EscapeTime.count(real: real, imaginary: imaginary, limit: limit))
            }
            for runningFree in [false, true] {
                let counts = IterationKernel.vectorGroupCounts(
                    runningFree: runningFree, realParts: row, imaginary: imaginary, limit: limit, julia: julia)
                #expect(counts == reference, "running free: \(runningFree), julia: \(julia != nil)")
            }
        }
    }

    /// The same on fixed rows across each edge point at three depths, with long orbits: a step
    /// computed any other way (a fused multiply-add) changes some count here on every run, where
    /// the random rows above find it only on some.
    @Test("both vector loops give the scalar counts on the edges' rows, deep and long")
    func bothLoopsOnTheEdges() {
        for edge in Self.edges.indices {
            for depth in [8, 16, 24] {
                let (row, imaginary) = Self.row(
                    edge: edge, dx: 0, dy: 0, depth: depth, length: IterationKernel.vectorGroupWidth, lane: 0)
                let reference = row.map { UInt32(EscapeTime.count(real: $0, imaginary: imaginary, limit: 5000)) }
                for runningFree in [false, true] {
                    let counts = IterationKernel.vectorGroupCounts(
                        runningFree: runningFree, realParts: row, imaginary: imaginary, limit: 5000)
                    #expect(counts == reference, "edge \(edge), depth \(depth), running free: \(runningFree)")
                }
            }
        }
    }

    /// With a Julia constant outside radius 2 an escaped orbit can come back: z₀ = √5 escapes at
    /// once, and z₁ = z₀² − 5 is about 0. Its count stays 0 in both loops, which only a mask that
    /// remembers the escape gives.
    @Test("an orbit that escapes and comes back inside radius 2 is counted to its escape, in both loops")
    func escapeIsFinal() {
        let julia = JuliaConstant(real: -5, imaginary: 0)
        let row = [Double(5).squareRoot(), 0.3, -Double(5).squareRoot(), 2.5]
        let reference = row.map {
            UInt32(EscapeTime.count(startReal: $0, startImaginary: 0, real: -5, imaginary: 0, limit: 50))
        }
        #expect(reference == [0, 1, 0, 0])
        for runningFree in [false, true] {
            let counts = IterationKernel.vectorGroupCounts(
                runningFree: runningFree, realParts: row, imaginary: 0, limit: 50, julia: julia)
            #expect(counts == reference, "running free: \(runningFree)")
        }
    }

    /// A group whose every lane takes the cardioid shortcut, and one where only some do: the free
    /// loop's shortcut lanes start with a failure (so that the first group does no step), and
    /// neither group's counts may show it.
    @Test("a group with nothing to iterate, and one with a little, give the scalar counts in both loops")
    func shortcutGroups() {
        let width = IterationKernel.vectorGroupWidth
        let inside: [Double] = (0..<width).map { -0.2 + Double($0) / 1000 }
        let mixed: [Double] = inside.indices.map { lane in lane % 5 == 0 ? inside[lane] + 0.5 : inside[lane] }
        for row in [inside, mixed] {
            let reference = row.map { UInt32(EscapeTime.count(real: $0, imaginary: 0.05, limit: 300)) }
            for runningFree in [false, true] {
                let counts = IterationKernel.vectorGroupCounts(
                    runningFree: runningFree, realParts: row, imaginary: 0.05, limit: 300)
                #expect(counts == reference, "running free: \(runningFree)")
            }
        }
    }

    /// Rows beyond |y| = 0.7 skip the cardioid and bulb test (`RowImaginaryPart.outsideTheShortcut`):
    /// the test must be false on every point there, which it is with a margin of 0.038 at 0.7.
    @Test("no point of a row beyond |y| = 0.7 takes the cardioid and bulb shortcut")
    func noShortcutFarOut() {
        for y in [0.7, -0.7, 0.7 + 1e-12, 0.75, -0.9, 1.5, 40] {
            let taken = (-30_000...30_000).map { Double($0) / 10_000 }.filter {
                IterationKernel.simd.skipsIteration(real: $0, imaginary: y)
            }
            #expect(taken == [], "y = \(y)")
        }
    }

    @Test("bilevel rows: the vector kernel sets the scalar one's bits, from any bit of a byte")
    func bilevel() async {
        await propertyCheck(
            count: 150, input: zip(Gen.int(in: 0...5), Gen.double(in: -1...1), Gen.double(in: -1...1)),
            Gen.int(in: 0...40),
            Gen.int(in: 1...3000), Gen.int(in: 1...70), Gen.int(in: 0...15)
        ) { view, depth, limit, length, column in
            let (row, im) = Self.row(edge: view.0, dx: view.1, dy: view.2, depth: depth, length: length, lane: column)
            func marked(_ kernel: IterationKernel) -> [UInt8] {
                var pixels = [UInt8](repeating: 0, count: (column + length + 7) / 8)
                var scratch = [UInt32](repeating: 0, count: length)
                _ = row.withUnsafeBufferPointer { reals in
                    kernel.markRow(
                        realParts: reals.baseAddress!, imaginary: im, count: length, limit: limit, into: &pixels,
                        column: column, scratch: &scratch)
                }
                return pixels
            }
            #expect(marked(.simd) == marked(.scalar))
        }
    }
}
