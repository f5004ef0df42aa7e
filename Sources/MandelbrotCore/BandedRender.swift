import Dispatch

/// Renders an image of any height in horizontal bands, in memory that depends on its width only.
///
/// Each band is a ``RenderWork`` of its own, run by the chosen strategy
/// exactly as a whole image of the band's size would be. Two band buffers
/// take turns: while the strategy renders band k + 1 into one, the caller's
/// `deliver` (a PNG writer on its own queue, say) consumes band k from the
/// other. Histogram colouring first runs the counting pass over every band.
///
/// The report keeps one record per band and worker rather than one per tile,
/// so its size grows with the bands, not the tiles.
public final class BandedRender: Sendable {
    /// Thrown by ``run(_:deliver:)`` when the render was cancelled before every band was delivered.
    public struct Cancelled: Error {
        /// Creates the error.
        public init() {}
    }

    /// What to render.
    public let job: RenderJob
    /// Rows per band (the last band may be shorter).
    public let bandHeight: Int
    private let cancellation: CancellationFlag
    private let onTileFinished: (@Sendable () -> Void)?

    /// Prepares a banded render; traps unless `bandHeight` is positive.
    ///
    /// - Parameters:
    ///   - job: What to render.
    ///   - bandHeight: Rows per band; at most the image's height is used.
    ///   - cancellation: The flag that stops the render.
    ///   - onTileFinished: Called on the worker's thread after each finished tile of every band and pass.
    public init(
        job: RenderJob, bandHeight: Int, cancellation: CancellationFlag = CancellationFlag(),
        onTileFinished: (@Sendable () -> Void)? = nil
    ) {
        precondition(bandHeight > 0, "a band has at least one row")
        if case .benchmarksGame = job.region {
            precondition(job.supersampling == 1, "the Benchmarks Game preset samples one point per pixel")
        }
        self.job = job
        self.bandHeight = min(bandHeight, job.size.height)
        self.cancellation = cancellation
        self.onTileFinished = onTileFinished
    }

    /// How many bands the image has.
    public var bandCount: Int { (job.size.height + bandHeight - 1) / bandHeight }

    /// The image rows of band `band`.
    public func rows(of band: Int) -> Range<Int> {
        band * bandHeight..<min(job.size.height, (band + 1) * bandHeight)
    }

    /// The tiles of every band of `job` in one pass, in bands of `bandHeight` rows: what a progress meter counts to.
    public static func tilesPerPass(of job: RenderJob, bandHeight: Int) -> Int {
        let bandHeight = min(bandHeight, job.size.height)
        let fullBands = job.size.height / bandHeight, lastRows = job.size.height % bandHeight
        func tiles(_ rows: Int) -> Int {
            WorkPlan(size: ImageSize(width: job.size.width, height: rows), split: job.split, workers: job.workers, tileSize: job.tileSize).tiles.count
        }
        return fullBands * tiles(bandHeight) + (lastRows > 0 ? tiles(lastRows) : 0)
    }

    /// Renders every band with `strategy`, top to bottom, and hands each to `deliver` in order.
    ///
    /// `deliver` runs while the next band renders; it must be done with the
    /// buffer when it returns, and returns the processor time it used, which
    /// the report leaves out of the render's. The first error it throws
    /// stops the render and is rethrown once the band in flight has finished.
    ///
    /// - Returns: The render's report: `wallSeconds` is the time the strategy spent
    ///   rendering (every band's start to its completion on the main queue), `cpu`
    ///   the process's processor time meanwhile without the deliveries'.
    /// - Throws: ``Cancelled`` if the cancel flag was set, or what `deliver` threw.
    @MainActor
    public func run(
        _ strategy: any RenderStrategy,
        deliver: @escaping @Sendable (_ band: PixelBuffer, _ rows: Range<Int>) async throws -> CPUTime
    ) async throws -> RenderReport {
        let start = MonotonicClock.nanoseconds()
        let startCPU = CPUTime.now()
        let grid = job.makeSampleGrid(), registry = WorkerRegistry()
        let histogram = job.colorScheme == .histogram ? EscapeHistogram(limit: job.kernelLimit) : nil
        var buffers: [Int: PixelBuffer] = [:]
        /// A reused buffer for band `band`: two of the full height take turns, plus one for a shorter last band.
        func buffer(for band: Int) -> PixelBuffer {
            let rows = rows(of: band).count
            let key = rows == bandHeight ? band % 2 : 2
            if let buffer = buffers[key] { return buffer }
            let buffer = PixelBuffer(size: ImageSize(width: job.size.width, height: rows), channels: job.colorScheme.channels)
            buffers[key] = buffer
            return buffer
        }
        func work(band: Int, countingOnly: Bool) -> RenderWork {
            RenderWork(
                job: job, canvas: buffer(for: band), firstRow: rows(of: band).lowerBound, counts: nil,
                cancellation: cancellation, onTileFinished: onTileFinished, histogram: histogram,
                isCountingPass: countingOnly, registry: registry, grid: grid)
        }

        var renderSeconds = 0.0
        var records: [TileRecord] = [], countingRecords: [TileRecord] = []
        var plannedWorkers = 0
        func renderBand(_ band: Int, countingOnly: Bool) async throws {
            let bandStart = MonotonicClock.nanoseconds()
            let report = await StrategyRunner.run(strategy, work: work(band: band, countingOnly: countingOnly))
            if report.wasCancelled { throw Cancelled() }
            renderSeconds += report.wallSeconds
            plannedWorkers = max(plannedWorkers, report.plannedWorkers)
            let summary = Self.perWorker(report.tiles, band: rows(of: band), width: job.size.width,
                                         offset: Double(bandStart - start) / 1e9)
            if countingOnly { countingRecords += summary } else { records += summary }
        }

        if let histogram {
            for band in 0..<bandCount { try await renderBand(band, countingOnly: true) }
            await withCheckedContinuation { sealed in histogram.seal { sealed.resume() } }
        }
        var deliveryCPU = CPUTime(user: 0, system: 0)
        var delivery: Task<CPUTime, any Error>?
        do {
            for band in 0..<bandCount {
                try await renderBand(band, countingOnly: false)
                // Band k − 1 must be written before band k is handed over, and
                // before band k + 1 reuses its buffer.
                if let used = try await delivery?.value { deliveryCPU = deliveryCPU.adding(used) }
                let finished = buffer(for: band), rows = rows(of: band)
                delivery = Task { try await deliver(finished, rows) }
            }
            if let used = try await delivery?.value { deliveryCPU = deliveryCPU.adding(used) }
        } catch {
            // Never leave a delivery running on a buffer that is about to be freed.
            _ = try? await delivery?.value
            throw error
        }
        let cpu = CPUTime.now().since(startCPU).since(deliveryCPU)
        return RenderReport(
            strategy: strategy.name, wallSeconds: renderSeconds, cpu: cpu, wasCancelled: false,
            tiles: records, countingTiles: countingRecords, plannedWorkers: plannedWorkers)
    }

    /// One record per worker for a band: its rows, the span from the worker's
    /// first tile's start to its last tile's end, and its iterations.
    static func perWorker(_ tiles: [TileRecord], band: Range<Int>, width: Int, offset: Double) -> [TileRecord] {
        var byWorker: [Int: TileRecord] = [:]
        let rect = PixelRect(x: 0, y: band.lowerBound, width: width, height: band.count)
        for tile in tiles {
            guard let worker = tile.worker else { continue }
            if var record = byWorker[worker] {
                record.start = min(record.start, tile.start + offset)
                record.end = max(record.end, tile.end + offset)
                record.iterations += tile.iterations
                byWorker[worker] = record
            } else {
                byWorker[worker] = TileRecord(rect: rect, worker: worker, start: tile.start + offset, end: tile.end + offset, iterations: tile.iterations)
            }
        }
        return byWorker.keys.sorted().map { byWorker[$0]! }
    }
}
