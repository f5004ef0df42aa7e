import MandelbrotCore
import Testing

@Suite("Julia sets")
struct JuliaTests {
    @Test(
        "SIMD counts, with and without smooth values, equal the reference for Julia sets",
        // −4: an orbit can come back inside the radius after leaving it (2.1² − 4 = 0.41),
        // which only a count that stops for good at the first escape gets right.
        arguments: [(-0.8, 0.156), (0.285, 0.01), (-0.4, 0.6), (0.0, 0.0), (-2.0, 0.0), (1.0, 1.0), (-4.0, 0.0)])
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
            #expect(countsOnly(.simd, realParts: grid.realParts, imaginary: y, limit: 500, julia: julia) == reference)
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

    @Test("the kernels' Julia path started at 0 gives the Mandelbrot path's counts and smooth values")
    func mandelbrotIsJuliaFromZero() {
        for kernel in IterationKernel.allCases {
            for (re, im) in [(-0.75, 0.1), (0.3, 0.5), (-1.9, 0.0), (0.26, 0.0)] {
                // A one-pixel row whose pixel is 0, with c as the Julia constant, against a row whose pixel is c.
                let julia = countRow(
                    kernel, realParts: [0], imaginary: 0, limit: 300, julia: JuliaConstant(real: re, imaginary: im))
                let mandelbrot = countRow(kernel, realParts: [re], imaginary: im, limit: 300)
                #expect(julia.0 == mandelbrot.0, "\(kernel) at \(re),\(im)")
                #expect(julia.1 == mandelbrot.1, "\(kernel) at \(re),\(im)")
            }
        }
    }
}
