import Comparison
import Foundation
import Testing

@Suite("SampleStatistics")
struct SampleStatisticsTests {
    @Test("median, mean and standard deviation of known samples")
    func knownValues() {
        let odd = SampleStatistics([5, 1, 3])
        #expect(odd.median == 3)
        #expect(odd.min == 1 && odd.max == 5)
        #expect(odd.mean == 3)
        #expect(odd.standardDeviation == 2)
        #expect(SampleStatistics([4, 1, 3, 2]).median == 2.5)
        #expect(SampleStatistics([7]).standardDeviation == 0)
    }

    @Test("one median for every figure: the middle of an odd count, the mean of the middle two of an even one")
    func oneMedian() {
        #expect(SampleStatistics.median([5, 1, 3]) == 3)
        #expect(SampleStatistics.median([4, 1, 3, 2]) == 2.5)
        #expect(SampleStatistics.median([0.2, 0.1]) == SampleStatistics([0.2, 0.1]).median)
        #expect(SampleStatistics.median([7]) == 7)
    }

    @Test("the bootstrap interval holds the median, lies within the samples, and is reproducible")
    func interval() throws {
        let samples = [10.2, 10.4, 9.9, 10.1, 10.0, 10.3, 10.8]
        let first = try #require(SampleStatistics(samples).medianInterval)
        #expect(first.contains(SampleStatistics(samples).median))
        #expect(first.lowerBound >= 9.9 && first.upperBound <= 10.8)
        #expect(SampleStatistics(samples).medianInterval == first)
    }

    @Test("the interval is the 2.5th and 97.5th percentiles of the bootstrap medians, from their exact distribution")
    func intervalPercentiles() throws {
        // Thirteen distinct samples. A resample's median is at most the k-th smallest sample when 7 or
        // more of its 13 draws are among the k smallest: P = P(Binomial(13, k/13) ≥ 7), 1.57% for
        // k = 3 and 7.07% for k = 4. Of 2,000 medians about 31 are then at most the 3rd sample and
        // about 141 at most the 4th, so the 51st smallest (2.5%) is the 4th sample, 3.6 standard
        // deviations from either side; the 26th (1.25%) would be the 3rd. By symmetry the 97.5th
        // percentile is the 10th sample.
        let samples: [Double] = [7, 3, 12, 1, 9, 5, 13, 2, 11, 6, 8, 4, 10].map { 1 + $0 / 100 }
        let interval = try #require(SampleStatistics(samples).medianInterval)
        #expect(interval == 1.04...1.10, "\(interval)")
        // The probabilities the comment states, from the formula.
        #expect(
            abs(Self.medianAtMost(3, of: 13) - 0.0157) < 0.0001 && abs(Self.medianAtMost(4, of: 13) - 0.0707) < 0.0001)
    }

    /// P(the median of n draws with replacement from n distinct values (n odd) is at most the k-th smallest).
    static func medianAtMost(_ k: Int, of n: Int) -> Double {
        let p = Double(k) / Double(n)
        var total = 0.0
        for drawn in (n / 2 + 1)...n {
            total += binomial(n, drawn) * pow(p, Double(drawn)) * pow(1 - p, Double(n - drawn))
        }
        return total
    }

    static func binomial(_ n: Int, _ k: Int) -> Double {
        (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
    }

    @Test("no interval below three samples")
    func tooFew() {
        #expect(SampleStatistics([1, 2]).medianInterval == nil)
        #expect(SampleStatistics([1, 2, 3]).medianInterval != nil)
    }
}

@Suite("Verdict")
struct VerdictTests {
    @Test("overlapping intervals are the same within noise; disjoint ones are slower by the ratio of medians")
    func verdicts() {
        let fast = SampleStatistics([1.0, 1.01, 0.99, 1.02, 0.98])
        let close = SampleStatistics([1.01, 1.0, 1.03, 0.99, 1.02])
        let slow = SampleStatistics([1.5, 1.52, 1.49, 1.51, 1.5])
        #expect(Verdict(close, against: fast, isFastest: false) == .sameWithinNoise)
        #expect(Verdict(slow, against: fast, isFastest: false) == .slower(by: 0.5))
        #expect(Verdict(slow, against: fast, isFastest: false).description == "slower (+50%)")
        #expect(Verdict(fast, against: fast, isFastest: true) == .fastest)
        #expect(Verdict(SampleStatistics([2, 2]), against: SampleStatistics([1, 1]), isFastest: false) == .tooFewRuns)
    }
}
