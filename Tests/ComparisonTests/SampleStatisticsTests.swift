import Comparison
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

    @Test("the bootstrap interval holds the median, lies within the samples, and is reproducible")
    func interval() throws {
        let samples = [10.2, 10.4, 9.9, 10.1, 10.0, 10.3, 10.8]
        let first = try #require(SampleStatistics(samples).medianInterval)
        #expect(first.contains(SampleStatistics(samples).median))
        #expect(first.lowerBound >= 9.9 && first.upperBound <= 10.8)
        #expect(SampleStatistics(samples).medianInterval == first)
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
