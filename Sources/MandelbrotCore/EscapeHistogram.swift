import AtomicShim
import Dispatch
import Platform
import Synchronization

/// The distribution of smooth escape values over a whole image: what histogram colouring spreads the palette over.
///
/// A histogram render runs twice through the same strategy. In the first
/// pass each tile collects the bins of its escaped samples in a ``Batch`` and
/// merges each full batch by the mechanism its ``HistogramSharing`` names: a
/// serial queue that owns the bins, a mutex, barrier blocks on a concurrent
/// queue, atomic increments, or a histogram of the worker's own. When the pass
/// completes, ``seal(then:)`` reads the bins (behind every batch) and turns them
/// into a cumulative distribution; the second pass then colours each sample by
/// the fraction of escaped samples that escaped faster (``fraction(of:in:)``).
/// The counts are integers, so the result depends neither on the mechanism nor
/// on the order in which the batches arrive.
public final class EscapeHistogram: @unchecked Sendable {
    // @unchecked: the shared bins are touched only as the mechanism allows: on
    // `serialQueue`; in barrier blocks on `concurrentQueue` (read in its `sync`);
    // under `lock`; by atomic operations; or, for private, each histogram by the
    // one worker that checked it out of `privatePool` (under its lock, which also
    // orders the final sum after every worker's adds). `queuedMergeNanoseconds`
    // is touched only in the queue's blocks. The distribution is published once,
    // through an atomic reference (a release store; readers load it acquiring),
    // so the colouring pass's workers see it whatever path the news of the seal
    // took to start them: the render learns of it through a continuation, an
    // edge ThreadSanitizer cannot see.

    /// The most bins kept, whatever the iteration limit: 8 MB of counts.
    static let maximumBins = 1 << 20

    /// Smooth values per bin: 1 unless the limit needs more than ``maximumBins`` bins.
    let binWidth: Double
    let binCount: Int
    /// How workers merge their batches.
    let sharing: HistogramSharing
    /// The shared bins, for every mechanism but private.
    private let counts: UnsafeMutablePointer<UInt64>
    private let serialQueue = DispatchQueue(label: "mandel.histogram")
    private let concurrentQueue = DispatchQueue(label: "mandel.histogram.barrier", attributes: .concurrent)
    /// The mutex of `.mutex`, around the nanoseconds spent holding it.
    private let lock = Locked<UInt64>(0)
    /// Nanoseconds the queue's blocks spent merging (queue and barrier).
    private var queuedMergeNanoseconds: UInt64 = 0
    private let privatePool = Locked<PrivatePool>(PrivatePool())
    private let workerMergeNanoseconds = Atomic<UInt64>(0)
    private let workerWaitNanoseconds = Atomic<UInt64>(0)
    private let batchCount = Atomic<Int>(0)
    private let valueCount = Atomic<UInt64>(0)
    let sealed = AtomicLazyReference<SealedDistribution>()

    /// The distribution in a box, so it can be published through an atomic reference.
    final class SealedDistribution: Sendable {
        let distribution: Distribution
        let statistics: MergeStatistics
        init(_ distribution: Distribution, statistics: MergeStatistics) {
            self.distribution = distribution
            self.statistics = statistics
        }
    }

    /// The cumulative counts the second pass reads.
    struct Distribution: Sendable {
        /// `below[b]`: escaped samples in the bins before `b`.
        let below: [UInt64]
        /// `inside[b]`: escaped samples in bin `b`.
        let inside: [UInt64]
        let total: UInt64
    }

    /// Private histograms: each is checked out by one tile at a time, so there are as
    /// many as tiles ever ran at once, not one per thread that ever took part.
    private struct PrivatePool {
        var free: [UnsafeMutablePointer<UInt64>] = []
        var all: [UnsafeMutablePointer<UInt64>] = []
    }

    /// One tile's bins on their way to the histogram, and what merging them cost.
    struct Batch {
        var bins: [UInt32] = []
        /// The tile's own histogram (private only).
        var own: UnsafeMutablePointer<UInt64>?
        var batches = 0
        var values: UInt64 = 0
        var mergeNanoseconds: UInt64 = 0
        var waitNanoseconds: UInt64 = 0
    }

    /// An empty histogram for smooth values up to a little past `limit`.
    public init(limit: Int, sharing: HistogramSharing = .standard) {
        // An escape at the last step has a smooth value below limit + 2.
        let span = Double(limit) + 2
        binCount = Self.binCount(limit: limit)
        binWidth = span / Double(binCount)
        self.sharing = sharing
        counts = .allocate(capacity: binCount)
        counts.initialize(repeating: 0, count: binCount)
    }

    deinit {
        counts.deallocate()
        privatePool.withLock { pool in pool.all.forEach { $0.deallocate() } }
    }

    /// The bins of a histogram for `limit`.
    static func binCount(limit: Int) -> Int {
        min(maximumBins, Int((Double(limit) + 2).rounded(.up)))
    }

    /// The memory a histogram for `limit` needs: its bins, the distribution's two arrays,
    /// and `privateHistograms` more (one per worker when workers merge into their own).
    static func bytesNeeded(limit: Int, privateHistograms: Int) -> Int {
        let histograms = 3 + privateHistograms
        let (bytes, overflow) = binCount(limit: limit).multipliedReportingOverflow(by: histograms * 8)
        return overflow ? .max : bytes
    }

    /// The bin of a smooth value, clamped into range.
    func bin(of value: Float) -> Int {
        min(binCount - 1, max(0, Int(Double(value) / binWidth)))
    }

    /// Room for the bins a batch starts with: its size, up to 16 KiB (a big batch grows as it fills).
    private var initialBatchCapacity: Int { min(sharing.batch, 1 << 12) }

    /// A tile's empty batch (with its own histogram checked out, for `.private`).
    func makeBatch() -> Batch {
        var batch = Batch()
        batch.bins.reserveCapacity(initialBatchCapacity)
        if sharing.merge == .private {
            batch.own = privatePool.withLock { pool in
                if let free = pool.free.popLast() { return free }
                let fresh = UnsafeMutablePointer<UInt64>.allocate(capacity: binCount)
                fresh.initialize(repeating: 0, count: binCount)
                pool.all.append(fresh)
                return fresh
            }
        }
        return batch
    }

    /// Adds the escaped samples of one row segment (those with a count below `limit`) to
    /// `batch`, merging it each time it holds ``HistogramSharing/batch`` values.
    func add(counts: UnsafePointer<UInt32>, values: UnsafePointer<Float>, count: Int, limit: Int, to batch: inout Batch)
    {
        let limit = UInt32(limit)
        let capacity = sharing.batch
        for index in 0..<count where counts[index] < limit {
            batch.bins.append(UInt32(bin(of: values[index])))
            if batch.bins.count == capacity { merge(&batch) }
        }
    }

    /// Merges what is left of a tile's batch, returns its own histogram and adds up what
    /// merging cost. Call it once per batch, before the tile counts as done (and so before the seal).
    func finish(_ batch: inout Batch) {
        merge(&batch)
        if let own = batch.own {
            privatePool.withLock { $0.free.append(own) }
            batch.own = nil
        }
        workerMergeNanoseconds.add(batch.mergeNanoseconds, ordering: .relaxed)
        workerWaitNanoseconds.add(batch.waitNanoseconds, ordering: .relaxed)
        batchCount.add(batch.batches, ordering: .relaxed)
        valueCount.add(batch.values, ordering: .relaxed)
    }

    /// Merges `batch`'s bins by the mechanism and empties it.
    func merge(_ batch: inout Batch) {
        let count = batch.bins.count
        guard count > 0 else { return }
        batch.batches += 1
        batch.values += UInt64(count)
        let start = MonotonicClock.nanoseconds()
        switch sharing.merge {
        case .queue, .barrier:
            // The block takes the array; the batch starts a new one (an allocation the hand-off pays).
            let bins = batch.bins
            batch.bins = []
            batch.bins.reserveCapacity(initialBatchCapacity)
            if sharing.merge == .queue {
                serialQueue.async { self.addQueued(bins) }
            } else {
                concurrentQueue.async(flags: .barrier) { self.addQueued(bins) }
            }
            batch.waitNanoseconds += MonotonicClock.nanoseconds() - start
            return
        case .mutex:
            let held = batch.bins.withUnsafeBufferPointer { bins in
                lock.withLock { heldNanoseconds in
                    let acquired = MonotonicClock.nanoseconds()
                    for bin in bins { counts[Int(bin)] += 1 }
                    heldNanoseconds += MonotonicClock.nanoseconds() - acquired
                    return acquired
                }
            }
            batch.waitNanoseconds += held - start
        case .atomic:
            batch.bins.withUnsafeBufferPointer { bins in
                mandel_increment_bins(counts, bins.baseAddress!, bins.count)
            }
            batch.mergeNanoseconds += MonotonicClock.nanoseconds() - start
        case .private:
            let own = batch.own!
            for bin in batch.bins { own[Int(bin)] += 1 }
            batch.mergeNanoseconds += MonotonicClock.nanoseconds() - start
        }
        batch.bins.removeAll(keepingCapacity: true)
    }

    /// A queue's block: adds `bins` to the shared bins (on the serial queue, or as a barrier).
    private func addQueued(_ bins: [UInt32]) {
        let start = MonotonicClock.nanoseconds()
        for bin in bins { counts[Int(bin)] += 1 }
        queuedMergeNanoseconds += MonotonicClock.nanoseconds() - start
    }

    /// The bins as the mechanism lets a reader see them, and the nanoseconds merging took
    /// where only the mechanism knows it. Runs off the main queue: it may wait.
    private func readBins() -> (bins: [UInt64], mergeNanoseconds: UInt64) {
        func copy() -> [UInt64] { Array(UnsafeBufferPointer(start: counts, count: binCount)) }
        switch sharing.merge {
        case .queue: return serialQueue.sync { (copy(), queuedMergeNanoseconds) }
        case .barrier: return concurrentQueue.sync { (copy(), queuedMergeNanoseconds) }
        case .mutex: return lock.withLock { held in (copy(), held) }
        case .atomic:
            var bins = [UInt64](repeating: 0, count: binCount)
            bins.withUnsafeMutableBufferPointer { mandel_load_counts(counts, $0.baseAddress!, binCount) }
            return (bins, 0)
        case .private:
            // The one merge of the private histograms: summed once, after the pass.
            let start = MonotonicClock.nanoseconds()
            var bins = [UInt64](repeating: 0, count: binCount)
            privatePool.withLock { pool in
                for own in pool.all {
                    for index in 0..<binCount { bins[index] += own[index] }
                }
            }
            return (bins, MonotonicClock.nanoseconds() - start)
        }
    }

    /// Freezes the first pass's counts into the distribution the second pass reads,
    /// then calls `completion` on a global queue.
    ///
    /// Call it once every tile of the first pass has finished its batch (after the
    /// pass's completion): every mechanism's read comes after every merge (the queues'
    /// reads are queued behind their blocks). It takes time proportional to the bins
    /// (at most ``maximumBins``, times the private histograms), not the pixels.
    public func seal(then completion: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async {
            let (counts, queued) = self.readBins()
            var below = [UInt64](repeating: 0, count: self.binCount)
            var running: UInt64 = 0
            for (index, count) in counts.enumerated() {
                below[index] = running
                running += count
            }
            let statistics = MergeStatistics(
                sharing: self.sharing, batches: self.batchCount.load(ordering: .relaxed),
                values: self.valueCount.load(ordering: .relaxed),
                mergeSeconds: Double(queued + self.workerMergeNanoseconds.load(ordering: .relaxed)) / 1e9,
                waitSeconds: Double(self.workerWaitNanoseconds.load(ordering: .relaxed)) / 1e9)
            _ = self.sealed.storeIfNil(
                SealedDistribution(
                    Distribution(below: below, inside: counts, total: running), statistics: statistics))
            completion()
        }
    }

    /// What merging cost, once sealed; nil before.
    var statistics: MergeStatistics? { sealed.load()?.statistics }

    /// The sealed distribution; traps if the first pass has not been sealed.
    func distribution() -> Distribution {
        guard let sealed = sealed.load() else {
            preconditionFailure("histogram colouring read the histogram before its first pass was sealed")
        }
        return sealed.distribution
    }

    /// The fraction of escaped samples whose smooth value is below `value`, in [0, 1],
    /// interpolated linearly inside a bin so that neighbouring values get neighbouring colours.
    func fraction(of value: Float, in distribution: Distribution) -> Double {
        guard distribution.total > 0 else { return 0 }
        let bin = bin(of: value)
        let within = min(1, max(0, Double(value) / binWidth - Double(bin)))
        let rank = Double(distribution.below[bin]) + within * Double(distribution.inside[bin])
        return rank / Double(distribution.total)
    }
}
