/// The scalar row kernel: `EscapeTime.count` over a run of pixels sharing one row.
enum RowKernel {
    /// Writes the escape count of `count` consecutive pixels, and their smooth
    /// values when `smooth` is not nil.
    static func countRow(
        realParts: UnsafePointer<Double>, imaginary: Double, count: Int, limit: Int,
        counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?
    ) {
        for index in 0..<count {
            let real = realParts[index]
            if let smooth {
                let (steps, value) = SmoothValue.escape(real: real, imaginary: imaginary, limit: limit)
                counts[index] = UInt32(steps)
                smooth[index] = value
            } else {
                counts[index] = UInt32(EscapeTime.count(real: real, imaginary: imaginary, limit: limit))
            }
        }
    }
}
