import Synchronization

/// One render in progress: the job, its plan, the caller's buffer, the records and the cancel flag.
///
/// A strategy receives a `RenderWork` and only decides who calls
/// ``renderTile(_:)`` for which tile, on which thread. Tiles write disjoint
/// parts of the buffer, so any thread may render any tile without locks.
public final class RenderWork: Sendable {
    /// What to render.
    public let job: RenderJob
    /// The tiles and who renders which.
    public let plan: WorkPlan
    /// The caller's image buffer that the tiles fill in.
    public let canvas: PixelBuffer
    /// Set it to ask the strategy to stop.
    public let cancellation: CancellationFlag
    /// Where every pixel's escape count is kept, if the caller wants them after the render.
    public let counts: IterationCounts?
    /// Called on the worker's thread after each finished tile; must be cheap and thread-safe.
    let onTileFinished: (@Sendable () -> Void)?

    let grid: SampleGrid
    let recorder: TileRecorder
    let registry = WorkerRegistry()
    private let colorizer: RowColorizer
    private let nextDynamicTile = Atomic<Int>(0)

    /// Prepares a render of `job` into `canvas`.
    ///
    /// - Parameters:
    ///   - job: What to render.
    ///   - canvas: The destination; traps unless its size and channel count match the job.
    ///   - counts: Where to keep every pixel's escape count, or nil; traps unless its size matches.
    ///   - cancellation: The flag that stops the render; a fresh one by default.
    ///   - onTileFinished: Called on the worker's thread after each finished tile (for progress).
    public init(
        job: RenderJob, canvas: PixelBuffer, counts: IterationCounts? = nil,
        cancellation: CancellationFlag = CancellationFlag(), onTileFinished: (@Sendable () -> Void)? = nil
    ) {
        precondition(canvas.size == job.size, "the canvas must have the job's size")
        precondition(canvas.channels == job.colorScheme.channels, "the canvas must have the colour scheme's channels")
        precondition(counts == nil || counts!.size == job.size, "the counts must have the job's size")
        self.counts = counts
        self.onTileFinished = onTileFinished
        self.job = job
        self.plan = WorkPlan(size: job.size, split: job.split, workers: job.workers, tileSize: job.tileSize)
        self.canvas = canvas
        self.cancellation = cancellation
        self.grid = job.makeSampleGrid()
        self.recorder = TileRecorder(tileCount: plan.tiles.count)
        self.colorizer = RowColorizer(scheme: job.colorScheme, limit: job.kernelLimit, palette: job.palette)
    }

    /// The most pixels rendered between two checks of the cancel flag (a multiple of the vector kernel's 32).
    static let segmentWidth = 256

    /// Whether the render has been asked to stop.
    public var isCancelled: Bool { cancellation.isCancelled }

    /// The next tile of a dynamic plan, or nil once all are taken or the render is cancelled.
    ///
    /// Safe from any thread: one atomic increment.
    public func nextTile() -> Int? {
        guard !isCancelled else { return nil }
        let index = nextDynamicTile.add(1, ordering: .relaxed).oldValue
        return index < plan.tiles.count ? index : nil
    }

    /// Renders tile `index` into the canvas and records who did it and when.
    ///
    /// Checks for cancellation before every row, so even a tall band stops
    /// within one row's time.
    ///
    /// - Parameter index: A tile of ``plan``; traps if out of range.
    /// - Returns: false if the render was cancelled before the tile was finished.
    @discardableResult
    public func renderTile(_ index: Int) -> Bool {
        let rect = plan.tiles[index]
        let worker = registry.currentWorker()
        let start = MonotonicClock.nanoseconds()
        let limit = job.kernelLimit
        let wantsSmooth = job.colorScheme.needsSmoothValues
        var iterations: UInt64 = 0
        let segment = min(rect.width, Self.segmentWidth)
        let finished = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: segment) { counts in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: wantsSmooth ? segment : 0) { smooth in
                grid.realParts.withUnsafeBufferPointer { realParts in
                    for y in rect.y..<rect.maxY {
                        // Segments of a row bound the work between two looks at the cancel
                        // flag, however wide the tile and however high the iteration limit.
                        for left in stride(from: rect.x, to: rect.maxX, by: Self.segmentWidth) {
                            if isCancelled { return false }
                            let width = min(Self.segmentWidth, rect.maxX - left)
                            iterations += job.kernel.countRow(
                                realParts: realParts.baseAddress! + left, imaginary: grid.imaginaryParts[y],
                                count: width, limit: limit,
                                counts: counts.baseAddress!, smooth: wantsSmooth ? smooth.baseAddress! : nil,
                                usefulLimit: job.iterations)
                            if let keep = self.counts {
                                keep.address(x: left, y: y).update(from: counts.baseAddress!, count: width)
                            }
                            colorizer.colour(
                                counts: counts.baseAddress!, smooth: wantsSmooth ? UnsafePointer(smooth.baseAddress!) : nil,
                                count: width, into: canvas.address(x: left, y: y))
                        }
                    }
                    return true
                }
            }
        }
        guard finished else { return false }
        recorder.record(tile: index, worker: worker, start: start, end: MonotonicClock.nanoseconds(), iterations: iterations)
        onTileFinished?()
        return true
    }
}
