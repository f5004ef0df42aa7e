/// The scalar row kernel: `EscapeTime.count` over a run of pixels sharing one row.
enum RowKernel {
    /// Writes the escape count of `count` consecutive pixels, and their smooth
    /// values when `smooth` is not nil.
    static func countRow(
        realParts: UnsafePointer<Double>, imaginary: Double, count: Int, limit: Int, julia: JuliaConstant?,
        counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?
    ) {
        for index in 0..<count {
            // The Mandelbrot set starts at 0 and adds the pixel; a Julia set starts at the pixel.
            let (startReal, startImaginary, real, imaginary) =
                julia.map { (realParts[index], imaginary, $0.real, $0.imaginary) }
                ?? (0, 0, realParts[index], imaginary)
            if let smooth {
                let (steps, value) = SmoothValue.escape(
                    startReal: startReal, startImaginary: startImaginary, real: real, imaginary: imaginary, limit: limit
                )
                counts[index] = UInt32(steps)
                smooth[index] = value
            } else {
                counts[index] = UInt32(
                    EscapeTime.count(
                        startReal: startReal, startImaginary: startImaginary, real: real, imaginary: imaginary,
                        limit: limit))
            }
        }
    }
}
