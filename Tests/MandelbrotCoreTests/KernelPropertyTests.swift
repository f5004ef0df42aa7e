import Foundation
import MandelbrotCore
import PropertyBased
import Testing

/// The vector kernel against the scalar reference, for inputs drawn at random: the rule is that
/// they agree on every pixel, whatever the view, the limit, the row's length and where in its
/// vector lanes and bytes a pixel falls.
@Suite("Kernel properties")
struct KernelPropertyTests {
    /// A row of `length` samples across a view at (re, im), 2^depth times narrower than the whole
    /// set, with the sample in `lane` swapped for one near the set's edge, so that neighbouring
    /// lanes escape at very different steps.
    static func row(re: Double, im: Double, depth: Int, length: Int, lane: Int) -> [Double] {
        let step = 3.0 / Double(length) / pow(2, Double(depth))
        var row = (0..<length).map { re + Double($0 - length / 2) * step }
        row[lane % length] = -0.7453 + Double(lane) * 1e-5
        return row
    }

    @Test("counts and smooth values: the vector kernel gives the scalar one's on random rows")
    func countsAndSmooth() async {
        await propertyCheck(
            count: 150, input: Gen.double(in: -2.2...0.8), Gen.double(in: -1.3...1.3), Gen.int(in: 0...40),
            Gen.int(in: 1...3000), Gen.int(in: 1...70), Gen.int(in: 0...69)
        ) { re, im, depth, limit, length, lane in
            let row = Self.row(re: re, im: im, depth: depth, length: length, lane: lane)
            let imaginary = im + Double(lane) * 1e-3
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
            count: 150, input: Gen.double(in: -2.2...0.8), Gen.double(in: -1.3...1.3), Gen.int(in: 0...40),
            Gen.int(in: 1...3000), Gen.int(in: 1...70), Gen.int(in: 0...15)
        ) { re, im, depth, limit, length, column in
            let row = Self.row(re: re, im: im, depth: depth, length: length, lane: column)
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
