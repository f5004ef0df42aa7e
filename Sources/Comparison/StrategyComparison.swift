/// Several strategies measured on the same workload, with what follows from the numbers.
public struct StrategyComparison: Sendable {
    /// One result per strategy, in the order they ran.
    public let results: [StrategyResult]
    /// Threads and memory after the warm-up and at the end, if measured.
    public let process: ProcessGrowth?

    /// Compares `results`; traps if there are none.
    public init(process: ProcessGrowth? = nil, results: [StrategyResult]) {
        precondition(!results.isEmpty, "a comparison needs a result")
        self.results = results
        self.process = process
    }

    /// The strategy with the smallest median wall time.
    public var fastest: StrategyResult { results.min { $0.wall.median < $1.wall.median }! }

    /// The `serial` result, the baseline of speedups, if it was measured.
    public var baseline: StrategyResult? { results.first { $0.strategy == "serial" } }

    /// The serial median over this strategy's median, or nil without a serial run.
    public func speedup(of result: StrategyResult) -> Double? {
        baseline.map { $0.wall.median / result.wall.median }
    }

    /// Speedup over the number of workers: 1 is perfect scaling.
    public func efficiency(of result: StrategyResult) -> Double? {
        speedup(of: result).map { $0 / Double(result.workers) }
    }

    /// Whether the result is faster than, or the same as, the fastest within the noise.
    public func verdict(of result: StrategyResult) -> Verdict {
        let fastest = self.fastest
        return Verdict(result.wall, against: fastest.wall, isFastest: result.strategy == fastest.strategy)
    }

    /// Strategies whose pixels differ from the first result's, if any.
    public var mismatchedStrategies: [String] {
        results.filter { $0.checksum != results[0].checksum }.map(\.strategy)
    }
}
