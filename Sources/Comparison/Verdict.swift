/// Whether a strategy's median is really different from the fastest one's.
package enum Verdict: Sendable, Equatable, CustomStringConvertible {
    /// This is the fastest strategy.
    case fastest
    /// The 95% intervals of the two medians overlap: the difference is within the noise.
    case sameWithinNoise
    /// Slower than the fastest, by this fraction of the fastest median, beyond the noise.
    case slower(by: Double)
    /// Too few runs to tell (fewer than ``SampleStatistics/minimumSamplesForInterval``).
    case tooFewRuns

    /// Judges `candidate` against `fastest`.
    package init(_ candidate: SampleStatistics, against fastest: SampleStatistics, isFastest: Bool) {
        if isFastest {
            self = .fastest
            return
        }
        guard let mine = candidate.medianInterval, let theirs = fastest.medianInterval else {
            self = .tooFewRuns
            return
        }
        if mine.overlaps(theirs) {
            self = .sameWithinNoise
        } else {
            self = .slower(by: candidate.median / fastest.median - 1)
        }
    }

    /// `fastest`, `same within noise`, `slower (+12%)` or `too few runs`.
    package var description: String {
        switch self {
        case .fastest: "fastest"
        case .sameWithinNoise: "same within noise"
        case .slower(let fraction): "slower (+\(Int((fraction * 100).rounded()))%)"
        case .tooFewRuns: "too few runs"
        }
    }
}
