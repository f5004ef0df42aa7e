/// The escape-time iteration that defines every pixel: the reference that all kernels match.
public enum EscapeTime {
    /// The number of steps before the orbit of 0 under `z ← z² + c` leaves the disc of radius 2.
    ///
    /// With z₀ = 0, at step k = 0, 1, …, limit − 1 the orbit stops if
    /// `zr·zr + zi·zi > 4`; otherwise `zi ← 2·zr·zi + im` and `zr ← zr² − zi² + re`.
    /// The result is the k at which it stopped, or `limit`: c is taken to be
    /// in the set exactly when the result equals `limit`.
    ///
    /// - Parameters:
    ///   - real: The real part of c.
    ///   - imaginary: The imaginary part of c.
    ///   - limit: The iteration limit; traps unless positive.
    @inlinable
    public static func count(real: Double, imaginary: Double, limit: Int) -> Int {
        count(startReal: 0, startImaginary: 0, real: real, imaginary: imaginary, limit: limit)
    }

    /// The same iteration from any starting point: the escape count of a Julia set's pixel
    /// (start at the pixel, add the set's constant) or, from 0, of the Mandelbrot set's.
    ///
    /// - Parameters:
    ///   - startReal: The real part of z₀.
    ///   - startImaginary: The imaginary part of z₀.
    ///   - real: The real part of the c added at every step.
    ///   - imaginary: The imaginary part of c.
    ///   - limit: The iteration limit; traps unless positive.
    @inlinable
    public static func count(
        startReal: Double, startImaginary: Double, real: Double, imaginary: Double, limit: Int
    ) -> Int {
        precondition(limit > 0, "the iteration limit must be positive")
        var zr = startReal
        var zi = startImaginary
        for step in 0..<limit {
            let zr2 = zr * zr
            let zi2 = zi * zi
            if zr2 + zi2 > 4 { return step }
            // Separate multiplies and adds: Swift never fuses them into FMA,
            // and every kernel must round exactly as this one does.
            zi = 2 * zr * zi + imaginary
            zr = zr2 - zi2 + real
        }
        return limit
    }
}
