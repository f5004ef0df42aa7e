/// What happened to one tile of a render, or to one worker's share of one band.
public struct TileRecord: Sendable, Hashable {
    /// The tile, or the band.
    public var rect: PixelRect
    /// The worker (0, 1, …, in order of first tile) that rendered it, or nil if it was never finished.
    public var worker: Int?
    /// Seconds from the start of the render to the start of the tile.
    public var start: Double
    /// Seconds from the start of the render to the end of the tile.
    public var end: Double
    /// Escape-time iterations spent on it.
    public var iterations: UInt64

    public init(rect: PixelRect, worker: Int?, start: Double, end: Double, iterations: UInt64) {
        self.rect = rect
        self.worker = worker
        self.start = start
        self.end = end
        self.iterations = iterations
    }

    /// Whether every pixel of the tile was rendered.
    public var isFinished: Bool { worker != nil }

    /// One record per worker for a band (`rect`): the span from the worker's first
    /// tile's start to its last tile's end, and its iterations. Unfinished tiles are left out.
    static func perWorker(_ tiles: [TileRecord], rect: PixelRect) -> [TileRecord] {
        var byWorker: [Int: TileRecord] = [:]
        for tile in tiles {
            guard let worker = tile.worker else { continue }
            if var record = byWorker[worker] {
                record.start = min(record.start, tile.start)
                record.end = max(record.end, tile.end)
                record.iterations += tile.iterations
                byWorker[worker] = record
            } else {
                byWorker[worker] = TileRecord(
                    rect: rect, worker: worker, start: tile.start, end: tile.end, iterations: tile.iterations)
            }
        }
        return byWorker.keys.sorted().map { byWorker[$0]! }
    }
}
