import MandelbrotCore
import Testing

@Suite("Julia sets")
struct JuliaTests {
    @Test(
        "SIMD counts and smooth values equal the reference for Julia sets",
        arguments: [(-0.8, 0.156), (0.285, 0.01), (-0.4, 0.6), (0.0, 0.0), (-2.0, 0.0), (1.0, 1.0)])
    func simdMatchesReference(real: Double, imaginary: Double) {
        let julia = JuliaConstant(real: real, imaginary: imaginary)
        let grid = SampleGrid(
            size: ImageSize(width: 77, height: 23), viewport: Viewport(centerReal: 0, centerImaginary: 0, zoom: 0.9))
        for y in grid.imaginaryParts {
            var scalar = [UInt32](repeating: 0, count: 77)
            var simd = scalar
            var scalarSmooth = [Float](repeating: 0, count: 77)
            var simdSmooth = scalarSmooth
            IterationKernel.scalar.countRow(
                realParts: grid.realParts, imaginary: y, count: 77, limit: 500,
                counts: &scalar, smooth: &scalarSmooth, julia: julia)
            IterationKernel.simd.countRow(
                realParts: grid.realParts, imaginary: y, count: 77, limit: 500,
                counts: &simd, smooth: &simdSmooth, julia: julia)
            let reference = grid.realParts.map {
                UInt32(EscapeTime.count(startReal: $0, startImaginary: y, real: real, imaginary: imaginary, limit: 500))
            }
            #expect(scalar == reference)
            #expect(simd == reference)
            #expect(simdSmooth == scalarSmooth)
        }
    }

    @Test("the Julia set of 0 is the closed unit disk")
    func unitDisk() {
        let zero = JuliaConstant(real: 0, imaginary: 0)
        var counts = [UInt32](repeating: 0, count: 4)
        IterationKernel.simd.countRow(
            realParts: [0.5, 0.98, 1.02, 1.5], imaginary: 0, count: 4, limit: 100,
            counts: &counts, smooth: nil, julia: zero)
        #expect(counts[0] == 100 && counts[1] == 100)
        #expect(counts[2] < 100 && counts[3] < 100)
    }

    @Test("the Mandelbrot count is the Julia count started at 0")
    func mandelbrotIsJuliaFromZero() {
        for (re, im) in [(-0.75, 0.1), (0.3, 0.5), (-1.9, 0.0)] {
            #expect(
                EscapeTime.count(real: re, imaginary: im, limit: 300)
                    == EscapeTime.count(startReal: 0, startImaginary: 0, real: re, imaginary: im, limit: 300))
        }
    }
}
