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
