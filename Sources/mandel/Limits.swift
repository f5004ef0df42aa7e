import ArgumentParser

/// The documented bounds of every option (README, "Options").
enum Limits {
    /// The largest width or height.
    static let maximumSide = 65_535
    /// The largest image, in pixels (16384 × 16384): the whole picture lives in memory.
    static let maximumPixels = 1 << 28
    /// The largest iteration limit.
    static let maximumIterations = 100_000_000
    /// The most workers.
    static let maximumWorkers = 1024
}

/// Checks `--grace`: a finite number of seconds from 0 to an hour.
func validateGrace(_ grace: Double) throws {
    guard grace.isFinite, (0...3600).contains(grace) else {
        throw ValidationError("--grace must be a number of seconds from 0 to 3600 (got \(grace))")
    }
}
