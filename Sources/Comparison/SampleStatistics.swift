import Foundation

/// Summary statistics of repeated timings, with a bootstrap confidence interval for the median.
package struct SampleStatistics: Sendable, Equatable {
    /// The samples, in the order they were measured.
    package let values: [Double]
    /// The smallest sample.
    package let min: Double
    /// The largest sample.
    package let max: Double
    /// The median (the mean of the middle two for an even count).
    package let median: Double
    /// The arithmetic mean.
    package let mean: Double
    /// The sample standard deviation (n − 1); 0 for a single sample.
    package let standardDeviation: Double
    /// A 95% confidence interval for the median, or nil with fewer than ``minimumSamplesForInterval`` samples.
    package let medianInterval: ClosedRange<Double>?

    /// Below this many samples no interval, and so no verdict, is given.
    package static let minimumSamplesForInterval = 3

    /// Summarises `values`; traps if there are none.
    ///
    /// The interval comes from 2,000 bootstrap resamples with a fixed seed, so
    /// the same samples always give the same interval.
    package init(_ values: [Double]) {
        precondition(!values.isEmpty, "statistics need at least one sample")
        self.values = values
        let sorted = values.sorted()
        min = sorted.first!
        max = sorted.last!
        median = Self.median(ofSorted: sorted)
        let mean = values.reduce(0, +) / Double(values.count)
        self.mean = mean
        let squares = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        standardDeviation = values.count > 1 ? (squares / Double(values.count - 1)).squareRoot() : 0
        medianInterval = values.count >= Self.minimumSamplesForInterval ? Self.bootstrapMedianInterval(values) : nil
    }

    /// The median of `values`, the one definition every figure `mandel` reports uses: the middle
    /// value of an odd count, the mean of the middle two of an even count. Traps if there are none.
    package static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "a median needs at least one value")
        return median(ofSorted: values.sorted())
    }

    static func median(ofSorted sorted: [Double]) -> Double {
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// The 2.5th and 97.5th percentiles of the medians of resamples drawn with replacement.
    static func bootstrapMedianInterval(_ values: [Double]) -> ClosedRange<Double> {
        var generator = SplitMix64(seed: 0x6d61_6e64_656c)
        var medians: [Double] = []
        medians.reserveCapacity(2000)
        var resample = [Double](repeating: 0, count: values.count)
        for _ in 0..<2000 {
            for index in resample.indices {
                resample[index] = values[Int(generator.next() % UInt64(values.count))]
            }
            resample.sort()
            medians.append(median(ofSorted: resample))
        }
        medians.sort()
        return medians[50]...medians[1949]
    }
}
