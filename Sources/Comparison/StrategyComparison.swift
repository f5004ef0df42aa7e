/// Several strategies measured on the same workload, with what follows from the numbers.
package struct StrategyComparison: Sendable {
    /// One result per strategy, in the order they ran.
    package let results: [StrategyResult]
    /// Threads and memory after the warm-up and at the end, if measured.
    package let process: ProcessGrowth?
    /// The name of the strategy that speedups are measured against.
    package let baselineName: String

    /// Compares `results`; traps if there are none.
    ///
    /// - Parameter baselineName: The strategy that speedups are measured against, if among the results.
    package init(baselineName: String, process: ProcessGrowth? = nil, results: [StrategyResult]) {
        precondition(!results.isEmpty, "a comparison needs a result")
        self.baselineName = baselineName
        self.results = results
        self.process = process
    }

    /// The strategy with the smallest median wall time.
    package var fastest: StrategyResult { results.min { $0.wall.median < $1.wall.median }! }

    /// Whether there are runs enough to call one strategy the fastest.
    package var hasVerdicts: Bool { results.allSatisfy { $0.wall.medianInterval != nil } }

    /// The name of the row `result`'s speedup is measured against.
    package func baselineName(for result: StrategyResult) -> String { result.baseline ?? baselineName }

    /// The baseline's median over this strategy's median, or nil without a baseline.
    package func speedup(of result: StrategyResult) -> Double? {
        let name = baselineName(for: result)
        return results.first { $0.strategy == name }.map { $0.wall.median / result.wall.median }
    }

    /// Speedup over the number of workers: 1 is perfect scaling.
    package func efficiency(of result: StrategyResult) -> Double? {
        speedup(of: result).map { $0 / Double(result.workers) }
    }

    /// Whether the result is the fastest, the same as it within the noise, or slower;
    /// ``Verdict/tooFewRuns`` for every result when any has too few runs to tell.
    package func verdict(of result: StrategyResult) -> Verdict {
        guard hasVerdicts else { return .tooFewRuns }
        let fastest = self.fastest
        return Verdict(result.wall, against: fastest.wall, isFastest: result.strategy == fastest.strategy)
    }

    /// Strategies whose pixels differ from the first result's, if any.
    package var mismatchedStrategies: [String] {
        results.filter { $0.checksum != results[0].checksum }.map(\.strategy)
    }
}
