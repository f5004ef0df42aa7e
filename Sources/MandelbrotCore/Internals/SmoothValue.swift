import Platform

/// The continuous ("normalised") iteration count that smooth colouring needs.
enum SmoothValue {
    /// The escape count (exactly `EscapeTime.count`) and its smooth value.
    ///
    /// The count is untouched; the smooth value continues the orbit a few
    /// steps past the escape so that |z| is large, which removes the banding a
    /// radius of 2 leaves, then returns `k + 1 − log₂(ln |z_k|)`.
    static func escape(
        startReal: Double = 0, startImaginary: Double = 0, real: Double, imaginary: Double, limit: Int
    ) -> (count: Int, value: Float) {
        var zr = startReal
        var zi = startImaginary
        for step in 0..<limit {
            let zr2 = zr * zr
            let zi2 = zi * zi
            if zr2 + zi2 > 4 {
                return (step, value(afterEscapeAt: step, zr: zr, zi: zi, real: real, imaginary: imaginary))
            }
            zi = 2 * zr * zi + imaginary
            zr = zr2 - zi2 + real
        }
        return (limit, Float(limit))
    }

    /// How many steps an escaped orbit goes on for: four more take |z| from > 2 to > 2^16,
    /// far enough for the log-log formula to be continuous to within a fraction of a shade.
    static let extraSteps = 4
    /// The |z|² at which the extra steps stop early, before z can overflow.
    static let largeModulusSquared = 1e20

    /// The smooth value of an orbit that escaped at `step` with z = (zr, zi).
    static func value(afterEscapeAt step: Int, zr: Double, zi: Double, real: Double, imaginary: Double) -> Float {
        var zr = zr
        var zi = zi
        var step = step
        var taken = 0
        while taken < extraSteps && zr * zr + zi * zi < largeModulusSquared {
            let zr2 = zr * zr
            let zi2 = zi * zi
            zi = 2 * zr * zi + imaginary
            zr = zr2 - zi2 + real
            step += 1
            taken += 1
        }
        return value(steps: step, modulusSquared: zr * zr + zi * zi)
    }

    /// The smooth value once the orbit has gone `steps` steps in all and |z|² is `modulusSquared`.
    @inline(__always)
    static func value(steps: Int, modulusSquared: Double) -> Float {
        let logModulus = 0.5 * log(modulusSquared)
        return Float(max(0, Double(steps) + 1 - log2(logModulus)))
    }
}
