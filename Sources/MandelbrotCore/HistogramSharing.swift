/// How histogram colouring's workers bring their escape values together in one histogram:
/// the ways to share state that the seeds weigh against each other.
///
/// Every mechanism adds the same integers, so the pixels do not depend on it
/// (nor on the batch size, nor on the order in which batches arrive).
public enum HistogramMerge: String, CaseIterable, Sendable {
    /// A serial queue owns the bins; workers hand it their batches with `async` and never wait.
    case queue
    /// A POSIX mutex around the shared bins; a worker adds its batch while it holds the lock.
    case mutex
    /// A private concurrent queue: batches are written by barrier blocks (`async(flags: .barrier)`),
    /// and the bins are read with `sync`: the reader–writer pattern of Effective Objective-C.
    case barrier
    /// Atomic increments of the shared bins, one per value; no lock, no queue.
    case atomic
    /// Each worker adds into a histogram no other thread touches while it renders a tile;
    /// they are summed once, after the pass.
    case `private`
}

/// How one render shares its histogram: the mechanism and how many values a worker
/// collects before it merges them.
public struct HistogramSharing: Sendable, Equatable {
    /// The mechanism.
    public var merge: HistogramMerge
    /// Escape values a worker collects before it merges them (the last batch of a tile may be smaller).
    public var batch: Int

    /// The most values in a batch: 4 MiB of bin numbers per tile in flight.
    public static let maximumBatch = 1 << 20
    /// The mechanism mandel uses unless told otherwise: a serial queue, 65,536 values a batch.
    public static let standard = HistogramSharing(merge: .queue, batch: 1 << 16)

    /// Traps unless `batch` is from 1 to ``maximumBatch``.
    public init(merge: HistogramMerge, batch: Int) {
        precondition((1...Self.maximumBatch).contains(batch), "a merge batch holds 1 to \(Self.maximumBatch) values")
        self.merge = merge
        self.batch = batch
    }
}

/// What merging a histogram cost in one run's counting pass.
public struct MergeStatistics: Sendable, Equatable {
    /// The mechanism and batch size measured.
    public let sharing: HistogramSharing
    /// Batches merged (private: batches added into a worker's own histogram).
    public let batches: Int
    /// Values merged: the escaped samples.
    public let values: UInt64
    /// Seconds spent adding batches to the bins, on whichever thread did it (the queue's
    /// thread for queue and barrier; the workers for the others), plus private's final sum.
    public let mergeSeconds: Double
    /// Seconds workers spent handing batches over rather than rendering: waiting for the
    /// lock (mutex) or enqueueing a block (queue, barrier). Zero for atomic and private,
    /// whose cost of sharing is all in ``mergeSeconds``.
    public let waitSeconds: Double

    public init(sharing: HistogramSharing, batches: Int, values: UInt64, mergeSeconds: Double, waitSeconds: Double) {
        self.sharing = sharing
        self.batches = batches
        self.values = values
        self.mergeSeconds = mergeSeconds
        self.waitSeconds = waitSeconds
    }
}
