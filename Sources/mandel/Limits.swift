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
