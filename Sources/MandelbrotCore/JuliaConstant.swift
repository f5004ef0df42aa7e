/// The constant c of a Julia set: every pixel's orbit starts at the pixel and adds c at each step.
public struct JuliaConstant: Sendable, Hashable {
    /// The real part of c.
    public var real: Double
    /// The imaginary part of c.
    public var imaginary: Double

    /// Creates a constant; traps unless both parts are finite.
    public init(real: Double, imaginary: Double) {
        precondition(real.isFinite && imaginary.isFinite, "a Julia constant must be finite")
        self.real = real
        self.imaginary = imaginary
    }
}
