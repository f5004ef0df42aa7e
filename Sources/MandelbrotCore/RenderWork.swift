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
    /// The caller's image buffer that the tiles fill in: the whole image, or one band of it.
    public let canvas: PixelBuffer
    /// The image row that the canvas's first row holds: 0 unless the canvas is a band.
    public let firstRow: Int
    /// Set it to ask the strategy to stop.
    public let cancellation: CancellationFlag
    /// Where every pixel's escape count is kept, if the caller wants them after the render.
    public let counts: IterationCounts?
    /// Called on the worker's thread after each finished tile; must be cheap and thread-safe.
    let onTileFinished: (@Sendable () -> Void)?
    /// For histogram colouring, the distribution both passes share; nil otherwise.
    let histogram: EscapeHistogram?
    /// Whether this is histogram colouring's first pass, which only counts into ``histogram``.
    let isCountingPass: Bool

    let grid: SampleGrid
    let recorder: TileRecorder
    let registry: WorkerRegistry
    private let colorizer: RowColorizer
    private let nextDynamicTile = Atomic<Int>(0)
    private let cancelRegistrations = Mutex<[Int]>([])

    /// Prepares a render of `job`, or of the band of it that starts at `firstRow`, into `canvas`.
    ///
    /// The plan splits the canvas among the workers exactly as it would split a
    /// whole image of the canvas's size; the pixels are those of the job's image.
    ///
    /// - Parameters:
    ///   - job: What to render.
    ///   - canvas: The destination: the whole image, or a band as wide as the image;
    ///     traps unless its width and channel count match the job and its rows fit.
    ///   - firstRow: The image row the canvas's first row holds (0 for the whole image).
    ///   - counts: Where to keep every pixel's escape count, or nil; traps unless its size is the canvas's.
    ///   - cancellation: The flag that stops the render; a fresh one by default.
    ///   - onTileFinished: Called on the worker's thread after each finished tile (for progress).
    public convenience init(
        job: RenderJob, canvas: PixelBuffer, firstRow: Int = 0, counts: IterationCounts? = nil,
        cancellation: CancellationFlag = CancellationFlag(), onTileFinished: (@Sendable () -> Void)? = nil
    ) {
        Self.check(job: job, canvas: canvas, firstRow: firstRow)
        precondition(counts == nil || counts!.size == canvas.size, "the counts must have the canvas's size")
        let histogram = job.colorScheme == .histogram ? EscapeHistogram(limit: job.kernelLimit) : nil
        self.init(
            job: job, canvas: canvas, firstRow: firstRow, counts: counts, cancellation: cancellation,
            onTileFinished: onTileFinished, histogram: histogram, isCountingPass: false,
            registry: WorkerRegistry(), grid: job.makeSampleGrid())
    }

    /// Traps unless `canvas` can hold rows `firstRow…` of the job's image.
    static func check(job: RenderJob, canvas: PixelBuffer, firstRow: Int) {
        precondition(canvas.size.width == job.size.width, "the canvas must be as wide as the job's image")
        precondition(firstRow >= 0 && firstRow + canvas.size.height <= job.size.height, "the canvas's rows must lie inside the image")
        precondition(canvas.channels == job.colorScheme.channels, "the canvas must have the colour scheme's channels")
        if case .benchmarksGame = job.region {
            precondition(job.supersampling == 1, "the Benchmarks Game preset samples one point per pixel")
        }
    }

    /// The designated initializer: every band of a banded render shares the
    /// histogram, the worker numbering and the sample grid.
    init(
        job: RenderJob, canvas: PixelBuffer, firstRow: Int, counts: IterationCounts?, cancellation: CancellationFlag,
        onTileFinished: (@Sendable () -> Void)?, histogram: EscapeHistogram?, isCountingPass: Bool,
        registry: WorkerRegistry, grid: SampleGrid
    ) {
        self.registry = registry
        self.counts = counts
        self.onTileFinished = onTileFinished
        self.job = job
        self.plan = WorkPlan(size: canvas.size, split: job.split, workers: job.workers, tileSize: job.tileSize)
        self.canvas = canvas
        self.firstRow = firstRow
        self.cancellation = cancellation
        self.grid = grid
        self.recorder = TileRecorder(tileCount: plan.tiles.count)
        self.histogram = histogram
        self.isCountingPass = isCountingPass
        self.colorizer = RowColorizer(
            scheme: job.colorScheme, limit: job.kernelLimit, palette: job.palette, histogram: histogram)
    }

    /// Histogram colouring's first pass over the same plan, which writes no pixels
    /// and only fills the histogram; nil for other colourings. It numbers the
    /// threads as this work does, so a worker is the same thread in both passes.
    func makeCountingPass() -> RenderWork? {
        guard let histogram, !isCountingPass, !histogram.isSealed else { return nil }
        return RenderWork(
            job: job, canvas: canvas, firstRow: firstRow, counts: nil, cancellation: cancellation,
            onTileFinished: onTileFinished, histogram: histogram, isCountingPass: true, registry: registry, grid: grid)
    }

    /// The most pixels rendered between two checks of the cancel flag (a multiple of the vector kernel's 32).
    static let segmentWidth = 256

    /// Whether the render has been asked to stop.
    public var isCancelled: Bool { cancellation.isCancelled }

    /// Registers a strategy's native cancel (`Thread.cancel()`, `cancelAllOperations()`, …)
    /// to run if the render is cancelled; it is forgotten when the render completes.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        if let registration = cancellation.onCancel(handler) {
            cancelRegistrations.withLock { $0.append(registration) }
        }
    }

    /// Forgets this render's cancel handlers: they capture the strategy's threads or
    /// queues, which capture this work, and would otherwise keep it alive.
    func releaseCancelHandlers() {
        let registrations = cancelRegistrations.withLock { list in
            defer { list = [] }
            return list
        }
        registrations.forEach(cancellation.removeHandler)
    }

    /// The next tile of a dynamic plan, or nil once all are taken or the render is cancelled.
    ///
    /// Safe from any thread: one atomic increment.
    public func nextTile() -> Int? {
        guard !isCancelled else { return nil }
        let index = nextDynamicTile.add(1, ordering: .relaxed).oldValue
        return index < plan.tiles.count ? index : nil
    }

    /// Renders worker `worker`'s share of the plan on the calling thread, then returns:
    /// its fixed tiles in a static plan, or tiles from the shared counter in a dynamic one.
    ///
    /// The loop every thread-per-worker strategy runs (thread, apply, pthread).
    /// It stops at the first cancelled tile, or as soon as `shouldContinue`
    /// (a mechanism's own cancel state, such as `Thread.isCancelled`) says no.
    public func renderShare(of worker: Int, while shouldContinue: () -> Bool = { true }) {
        if let tiles = plan.assignments?[worker] {
            for tile in tiles {
                guard shouldContinue(), renderTile(tile) else { return }
            }
        } else {
            while shouldContinue(), let tile = nextTile() {
                guard renderTile(tile) else { return }
            }
        }
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
        var iterations: UInt64 = 0
        let finished = if isCountingPass {
            countIntoHistogram(rect, iterations: &iterations)
        } else if job.supersampling == 1 {
            renderPixels(rect, iterations: &iterations)
        } else {
            renderSupersampled(rect, iterations: &iterations)
        }
        guard finished else { return false }
        recorder.record(tile: index, worker: worker, start: start, end: MonotonicClock.nanoseconds(), iterations: iterations)
        onTileFinished?()
        return true
    }

    // MARK: - Rendering a tile

    /// Histogram colouring's first pass: every sample of the tile (k×k per pixel
    /// when supersampling) counted into the histogram; no pixels written.
    private func countIntoHistogram(_ rect: PixelRect, iterations: inout UInt64) -> Bool {
        let k = job.supersampling, histogram = histogram!
        let segment = min(rect.width * k, Self.segmentWidth)
        var batch = EscapeHistogram.Batch()
        let finished = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: segment) { counts in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: segment) { smooth in
                for row in ((firstRow + rect.y) * k)..<((firstRow + rect.maxY) * k) {
                    for left in stride(from: rect.x * k, to: rect.maxX * k, by: Self.segmentWidth) {
                        if isCancelled { return false }
                        let width = min(Self.segmentWidth, rect.maxX * k - left)
                        iterations += countSamples(
                            row: row, firstColumn: left, count: width, counts: counts.baseAddress!, smooth: smooth.baseAddress!)
                        histogram.add(
                            counts: counts.baseAddress!, values: smooth.baseAddress!, count: width, limit: job.kernelLimit, to: &batch)
                    }
                }
                return true
            }
        }
        // Shipped before the tile counts as done, so before the pass's completion and the seal.
        if finished { histogram.ship(&batch) }
        return finished
    }

    /// One sample per pixel: kernel, then colouring, segment by segment.
    private func renderPixels(_ rect: PixelRect, iterations: inout UInt64) -> Bool {
        let wantsSmooth = job.colorScheme.needsSmoothValues
        let segment = min(rect.width, Self.segmentWidth)
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: segment) { counts in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: wantsSmooth ? segment : 0) { smooth in
                for y in rect.y..<rect.maxY {
                    // Segments of a row bound the work between two looks at the cancel
                    // flag, however wide the tile and however high the iteration limit.
                    for left in stride(from: rect.x, to: rect.maxX, by: Self.segmentWidth) {
                        if isCancelled { return false }
                        let width = min(Self.segmentWidth, rect.maxX - left)
                        iterations += countSamples(
                            row: firstRow + y, firstColumn: left, count: width, counts: counts.baseAddress!,
                            smooth: wantsSmooth ? smooth.baseAddress! : nil)
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

    /// k×k samples per pixel: each sample coloured, then averaged in linear light.
    ///
    /// The sums run in the same order whichever thread renders the tile, so the
    /// pixels are the same for every strategy.
    private func renderSupersampled(_ rect: PixelRect, iterations: inout UInt64) -> Bool {
        let k = job.supersampling, channels = canvas.channels
        let wantsSmooth = job.colorScheme.needsSmoothValues
        let pixelsPerSegment = max(1, Self.segmentWidth / k)
        let samples = min(rect.width, pixelsPerSegment) * k
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: samples) { counts in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: wantsSmooth ? samples : 0) { smooth in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: samples * channels) { colours in
                    withUnsafeTemporaryAllocation(of: Double.self, capacity: samples / k * channels) { light in
                        for y in rect.y..<rect.maxY {
                            for left in stride(from: rect.x, to: rect.maxX, by: pixelsPerSegment) {
                                if isCancelled { return false }
                                let width = min(pixelsPerSegment, rect.maxX - left)
                                light.initialize(repeating: 0)
                                var pixelCosts = [UInt64](repeating: 0, count: self.counts == nil ? 0 : width)
                                for subRow in 0..<k {
                                    iterations += countSamples(
                                        row: (firstRow + y) * k + subRow, firstColumn: left * k, count: width * k,
                                        counts: counts.baseAddress!, smooth: wantsSmooth ? smooth.baseAddress! : nil)
                                    colorizer.colour(
                                        counts: counts.baseAddress!,
                                        smooth: wantsSmooth ? UnsafePointer(smooth.baseAddress!) : nil,
                                        count: width * k, into: colours.baseAddress!)
                                    for sample in 0..<(width * k) {
                                        let pixel = sample / k
                                        for channel in 0..<channels {
                                            light[pixel * channels + channel] += LinearLight.fromSRGB[Int(colours[sample * channels + channel])]
                                        }
                                        if !pixelCosts.isEmpty { pixelCosts[pixel] += UInt64(counts[sample]) }
                                    }
                                }
                                let output = canvas.address(x: left, y: y)
                                let sampleCount = Double(k * k)
                                for value in 0..<(width * channels) {
                                    output[value] = LinearLight.toSRGB(light[value] / sampleCount)
                                }
                                if let keep = self.counts {
                                    // A pixel's cost is every sample's iterations.
                                    let costs = pixelCosts.map { UInt32(min($0, UInt64(UInt32.max))) }
                                    costs.withUnsafeBufferPointer { keep.address(x: left, y: y).update(from: $0.baseAddress!, count: width) }
                                }
                            }
                        }
                        return true
                    }
                }
            }
        }
    }

    /// Runs the kernel over `count` samples of one grid row and returns their useful iterations.
    private func countSamples(
        row: Int, firstColumn: Int, count: Int, counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?
    ) -> UInt64 {
        grid.realParts.withUnsafeBufferPointer { realParts in
            job.kernel.countRow(
                realParts: realParts.baseAddress! + firstColumn, imaginary: grid.imaginaryParts[row],
                count: count, limit: job.kernelLimit, counts: counts, smooth: smooth,
                usefulLimit: job.iterations, julia: job.julia)
        }
    }
}
