public import Platform

/// The measurements of one render.
public struct RenderReport: Sendable {
    /// The strategy's name.
    public let strategy: String
    /// Seconds from the first pass's start call to the last pass's completion on the main queue.
    public let wallSeconds: Double
    /// Processor time the process used meanwhile, less what the band sink used, plus that of the
    /// helper processes that rendered its tiles (the `process` strategy), each counted as it was reaped.
    public let cpu: CPUTime
    /// The colouring pass: one record per tile for a picture rendered whole,
    /// one per band and worker for a picture rendered in bands.
    public let tiles: [TileRecord]
    /// Histogram colouring's counting pass, recorded the same way; empty otherwise.
    public let countingTiles: [TileRecord]
    /// How many workers the plan kept busy.
    public let plannedWorkers: Int
    /// For a cancelled render, seconds from its start to the cancel request.
    public let cancelRequestedSeconds: Double?
    /// When the render started, in ``MonotonicClock`` nanoseconds.
    public let startNanoseconds: UInt64
    /// The process's processor time when the last pass completed, from ``ProcessorClock``.
    public let processorNanosecondsAtCompletion: UInt64?
    /// What merging the histogram cost (histogram colouring only, once its counting pass is sealed).
    public let merge: MergeStatistics?
    /// Seconds from the start until every tile touching the picture's central quarter (the
    /// middle half of each side) was coloured; nil for a banded picture, whose records are
    /// per band and worker, and for a render that did not finish them.
    public let centreDoneSeconds: Double?
    /// With a preview, seconds from the start until the preview was delivered on the main queue.
    public let firstPictureSeconds: Double?
    /// With a preview, its tiles, recorded as the picture's are; empty otherwise.
    public let previewTiles: [TileRecord]
    /// Helper processes that broke down and were replaced (the `process` strategy; 0 for the others).
    public let helperCrashes: Int
    /// Tiles sent again to a replacement helper.
    public let workRetried: Int
    /// For a deep view, the serial parts' times: the reference orbit and the BLA table.
    public let deepPhases: DeepPhases?
    /// For a deep view whose pixels were counted in this process, those whose Double steps could
    /// not decide their count: counted again in MPFR, and left as they were (past the MPFR budget);
    /// nil otherwise (helpers count their own).
    public let deepUntrustedPixels: (counted: Int, left: Int)?

    public init(
        strategy: String, wallSeconds: Double, cpu: CPUTime, tiles: [TileRecord], countingTiles: [TileRecord] = [],
        plannedWorkers: Int, cancelRequestedSeconds: Double? = nil, processorNanosecondsAtCompletion: UInt64? = nil,
        startNanoseconds: UInt64 = 0, merge: MergeStatistics? = nil, firstPictureSeconds: Double? = nil,
        previewTiles: [TileRecord] = [], centreDoneSeconds: Double? = nil, recovery: RecoveryTally? = nil,
        deepPhases: DeepPhases? = nil, deepUntrustedPixels: (counted: Int, left: Int)? = nil
    ) {
        self.deepPhases = deepPhases
        self.deepUntrustedPixels = deepUntrustedPixels
        helperCrashes = recovery?.helperCrashes ?? 0
        workRetried = recovery?.workRetried ?? 0
        self.previewTiles = Self.numberedInPass(previewTiles)
        self.firstPictureSeconds = firstPictureSeconds
        self.centreDoneSeconds = centreDoneSeconds
        self.merge = merge
        self.startNanoseconds = startNanoseconds
        self.cancelRequestedSeconds = cancelRequestedSeconds
        self.processorNanosecondsAtCompletion = processorNanosecondsAtCompletion
        self.strategy = strategy
        self.wallSeconds = wallSeconds
        self.cpu = cpu
        self.tiles = Self.numberedInPass(tiles)
        self.countingTiles = Self.numberedInPass(countingTiles)
        self.plannedWorkers = plannedWorkers
    }

    /// One pass's records with its workers numbered from 0 in the order of the ids they were given
    /// (the order of their first tiles): a strategy that starts threads of its own for each pass
    /// (`thread`, `pthread`, `serial`'s queue) has as many workers in its second pass as in its first,
    /// not their sum, and worker K of each pass is the same row of the trace.
    static func numberedInPass(_ records: [TileRecord]) -> [TileRecord] {
        let ids = Set(records.compactMap(\.worker)).sorted()
        guard ids.last.map({ $0 != ids.count - 1 }) ?? false else { return records }
        let slots = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        return records.map { record in
            var numbered = record
            numbered.worker = record.worker.flatMap { slots[$0] }
            return numbered
        }
    }

    /// The records of every pass, the counting pass first.
    var allTiles: [TileRecord] { countingTiles + tiles }

    /// The escape-time iterations of every finished tile, in every pass.
    public var totalIterations: UInt64 { allTiles.reduce(0) { $0 + $1.iterations } }

    /// The most threads that rendered tiles in one pass (may exceed the planned workers for pooled mechanisms).
    public var threadsUsed: Int { (allTiles.compactMap(\.worker).max() ?? -1) + 1 }

    /// Seconds each worker spent inside tiles, indexed by worker; at least one entry per planned
    /// worker, so a worker that never ran (a pooled mechanism may run two blocks on one thread) shows 0.
    public var workerBusySeconds: [Double] {
        var busy = [Double](repeating: 0, count: max(threadsUsed, plannedWorkers))
        for tile in allTiles {
            if let worker = tile.worker { busy[worker] += tile.end - tile.start }
        }
        return busy
    }

    /// The tiles that started after the cancel request: what a mechanism that cannot be
    /// cancelled keeps doing. Zero for a render that was not cancelled.
    public var tilesStartedAfterCancel: Int {
        guard let cancelRequestedSeconds else { return 0 }
        return allTiles.filter { $0.isFinished && $0.start > cancelRequestedSeconds }.count
    }

    /// The busiest worker's busy time over the mean of all planned workers: 1 is a perfect balance.
    public var imbalance: Double {
        let busy = workerBusySeconds
        let mean = busy.reduce(0, +) / Double(busy.count)
        guard mean > 0, let busiest = busy.max() else { return 1 }
        return busiest / mean
    }
}

extension RenderReport {
    /// When the last of `tiles` touching the central quarter of a `size` picture finished;
    /// nil if one of them did not.
    static func centreDone(_ tiles: [TileRecord], size: ImageSize) -> Double? {
        let quarter = PixelRect(
            x: size.width / 4, y: size.height / 4, width: max(1, size.width / 2), height: max(1, size.height / 2))
        var last = 0.0
        for tile in tiles where tile.rect.intersects(quarter) {
            guard tile.isFinished else { return nil }
            last = max(last, tile.end)
        }
        return last
    }
}

/// Thrown when a render stopped because its cancel flag was set.
public struct RenderCancelled: Error {
    /// What was done before it stopped: for a picture rendered whole, a record for every
    /// tile (unfinished ones have no worker); otherwise the bands handed over.
    public let report: RenderReport

    public init(report: RenderReport) { self.report = report }
}
