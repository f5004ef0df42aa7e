import Synchronization

/// The distribution of smooth escape values over a whole image: what histogram colouring spreads the palette over.
///
/// A histogram render runs twice through the same strategy. The first pass
/// adds every escaped sample's smooth value here (``add(counts:values:count:limit:)``,
/// from any thread); then ``seal()`` turns the bins into a cumulative
/// distribution, and the second pass colours each sample by the fraction of
/// escaped samples that escaped faster (``fraction(of:)``). The bins are
/// integers, so the result does not depend on which thread added what first.
public final class EscapeHistogram: Sendable {
    /// The most bins kept, whatever the iteration limit: 8 MB of counts.
    static let maximumBins = 1 << 20

    /// Smooth values per bin: 1 unless the limit needs more than ``maximumBins`` bins.
    let binWidth: Double
    private let bins = Mutex<[UInt64]>([])
    private let sealed = Mutex<Distribution?>(nil)

    /// The cumulative counts the second pass reads.
    struct Distribution {
        /// `below[b]`: escaped samples in the bins before `b`.
        let below: [UInt64]
        /// `inside[b]`: escaped samples in bin `b`.
        let inside: [UInt64]
        let total: UInt64
    }

    /// An empty histogram for smooth values up to a little past `limit`.
    public init(limit: Int) {
        // An escape at the last step has a smooth value below limit + 2.
        let span = Double(limit) + 2
        let binCount = min(Self.maximumBins, Int(span.rounded(.up)))
        binWidth = span / Double(binCount)
        bins.withLock { $0 = [UInt64](repeating: 0, count: binCount) }
    }

    /// The bin of a smooth value, clamped into range.
    private func bin(of value: Float, binCount: Int) -> Int {
        min(binCount - 1, max(0, Int(Double(value) / binWidth)))
    }

    /// Adds the escaped samples of one row segment (those with a count below `limit`).
    func add(counts: UnsafePointer<UInt32>, values: UnsafePointer<Float>, count: Int, limit: Int) {
        let limit = UInt32(limit)
        bins.withLock { bins in
            let binCount = bins.count
            for index in 0..<count where counts[index] < limit {
                bins[bin(of: values[index], binCount: binCount)] += 1
            }
        }
    }

    /// Freezes the first pass's counts into the distribution the second pass reads.
    ///
    /// Runs in time proportional to the bins (at most ``maximumBins``), not the pixels.
    public func seal() {
        let counts = bins.withLock { $0 }
        var below = [UInt64](repeating: 0, count: counts.count)
        var running: UInt64 = 0
        for (index, count) in counts.enumerated() {
            below[index] = running
            running += count
        }
        sealed.withLock { $0 = Distribution(below: below, inside: counts, total: running) }
    }

    /// Whether ``seal()`` has run: the counting is over.
    public var isSealed: Bool { sealed.withLock { $0 != nil } }

    /// The sealed distribution; traps if the first pass has not been sealed.
    func distribution() -> Distribution {
        guard let distribution = sealed.withLock({ $0 }) else {
            preconditionFailure("histogram colouring read the histogram before its first pass was sealed")
        }
        return distribution
    }

    /// The fraction of escaped samples whose smooth value is below `value`, in [0, 1],
    /// interpolated linearly inside a bin so that neighbouring values get neighbouring colours.
    func fraction(of value: Float, in distribution: Distribution) -> Double {
        guard distribution.total > 0 else { return 0 }
        let bin = bin(of: value, binCount: distribution.inside.count)
        let within = min(1, max(0, Double(value) / binWidth - Double(bin)))
        let rank = Double(distribution.below[bin]) + within * Double(distribution.inside[bin])
        return rank / Double(distribution.total)
    }
}
