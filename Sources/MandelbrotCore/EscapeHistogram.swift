import Dispatch
import Synchronization

/// The distribution of smooth escape values over a whole image: what histogram colouring spreads the palette over.
///
/// A histogram render runs twice through the same strategy. In the first
/// pass each tile collects the bins of its escaped samples in a ``Batch`` and
/// ships them to the histogram's serial merge queue, which alone owns the
/// counts: workers never wait on each other, and no lock is taken. When the
/// pass completes, ``seal(then:)`` queues one more block behind every batch,
/// which turns the counts into a cumulative distribution; the second pass
/// then colours each sample by the fraction of escaped samples that escaped
/// faster (``fraction(of:in:)``). The counts are integers, so the result does
/// not depend on the order in which the batches arrive.
public final class EscapeHistogram: @unchecked Sendable {
    // @unchecked: `counts` is touched only on `mergeQueue`. The distribution is
    // published once, by seal's block on that queue, through an atomic reference
    // (a release store; readers load it acquiring), so the colouring pass's
    // workers see it whatever path the news of the seal took to start them: the
    // render learns of it through a continuation, an edge ThreadSanitizer cannot see.

    /// The most bins kept, whatever the iteration limit: 8 MB of counts.
    static let maximumBins = 1 << 20
    /// The most bin indices a batch holds before it is shipped (256 KB).
    static let batchCapacity = 1 << 16

    /// Smooth values per bin: 1 unless the limit needs more than ``maximumBins`` bins.
    let binWidth: Double
    private let binCount: Int
    private let mergeQueue = DispatchQueue(label: "mandel.histogram")
    private var counts: [UInt64]
    private let sealed = AtomicLazyReference<SealedDistribution>()

    /// The distribution in a box, so it can be published through an atomic reference.
    final class SealedDistribution: Sendable {
        let distribution: Distribution
        init(_ distribution: Distribution) { self.distribution = distribution }
    }

    /// The cumulative counts the second pass reads.
    struct Distribution: Sendable {
        /// `below[b]`: escaped samples in the bins before `b`.
        let below: [UInt64]
        /// `inside[b]`: escaped samples in bin `b`.
        let inside: [UInt64]
        let total: UInt64
    }

    /// One worker's bins on their way to the merge queue: a tile fills one, then ships it.
    struct Batch {
        var bins: [UInt32] = []
    }

    /// An empty histogram for smooth values up to a little past `limit`.
    public init(limit: Int) {
        // An escape at the last step has a smooth value below limit + 2.
        let span = Double(limit) + 2
        binCount = min(Self.maximumBins, Int(span.rounded(.up)))
        binWidth = span / Double(binCount)
        counts = [UInt64](repeating: 0, count: binCount)
    }

    /// The bin of a smooth value, clamped into range.
    private func bin(of value: Float) -> Int {
        min(binCount - 1, max(0, Int(Double(value) / binWidth)))
    }

    /// Adds the escaped samples of one row segment (those with a count below `limit`) to `batch`,
    /// shipping it to the merge queue when it is full.
    func add(counts: UnsafePointer<UInt32>, values: UnsafePointer<Float>, count: Int, limit: Int, to batch: inout Batch)
    {
        let limit = UInt32(limit)
        for index in 0..<count where counts[index] < limit {
            batch.bins.append(UInt32(bin(of: values[index])))
        }
        if batch.bins.count >= Self.batchCapacity { ship(&batch) }
    }

    /// Sends `batch`'s bins to the merge queue and empties it; returns at once.
    func ship(_ batch: inout Batch) {
        guard !batch.bins.isEmpty else { return }
        let bins = batch.bins
        batch.bins.removeAll(keepingCapacity: true)
        mergeQueue.async {
            for bin in bins { self.counts[Int(bin)] += 1 }
        }
    }

    /// Freezes the first pass's counts into the distribution the second pass reads,
    /// then calls `completion` on the merge queue.
    ///
    /// Call it once every batch of the first pass has been shipped (after the
    /// pass's completion): the merge queue is serial, so this runs after them.
    /// It takes time proportional to the bins (at most ``maximumBins``), not the pixels.
    public func seal(then completion: @escaping @Sendable () -> Void) {
        mergeQueue.async {
            var below = [UInt64](repeating: 0, count: self.binCount)
            var running: UInt64 = 0
            for (index, count) in self.counts.enumerated() {
                below[index] = running
                running += count
            }
            _ = self.sealed.storeIfNil(
                SealedDistribution(Distribution(below: below, inside: self.counts, total: running)))
            completion()
        }
    }

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
