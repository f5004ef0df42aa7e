/// What happened to one tile of a render.
public struct TileRecord: Sendable, Hashable {
    /// The tile.
    public var rect: PixelRect
    /// The worker (0, 1, …, in order of first tile) that rendered it, or nil if it was never finished.
    public var worker: Int?
    /// Seconds from the start of the run to the start of the tile.
    public var start: Double
    /// Seconds from the start of the run to the end of the tile.
    public var end: Double
    /// Escape-time iterations spent on it (the sum of its pixels' counts).
    public var iterations: UInt64

    /// Whether every pixel of the tile was rendered.
    public var isFinished: Bool { worker != nil }
}
