/// Every counted run of one strategy on one workload.
package struct StrategyResult: Sendable {
    /// The strategy's name.
    package let strategy: String
    /// Wall times in seconds, one per counted run.
    package let wall: SampleStatistics
    /// Mean user-mode CPU seconds per run.
    package let userSeconds: Double
    /// Mean kernel-mode CPU seconds per run.
    package let systemSeconds: Double
    /// How many workers ran at once (1 for the baseline).
    package let workers: Int
    /// The most distinct threads any run used.
    package let threadsUsed: Int
    /// The median over runs of the busiest worker's busy time over the mean.
    package let imbalance: Double
    /// The pixels' checksum (every run must agree).
    package let checksum: UInt64
    /// Pixels per run.
    package let pixels: Int
    /// Escape-time iterations per run.
    package let iterations: UInt64
    /// How it behaved beyond its speed.
    package let behaviour: StrategyBehaviour
    /// The row its speedup is measured against, when not the comparison's baseline
    /// (`serial/mutex` for `gcd/mutex`: the baseline sharing the histogram the same way).
    package let baseline: String?
    /// The tile order asked for: rows or centre.
    package let order: String

    /// Collects the results of a strategy's runs.
    package init(
        strategy: String, wallSeconds: [Double], userSeconds: Double, systemSeconds: Double, workers: Int,
        threadsUsed: Int, imbalance: Double, checksum: UInt64, pixels: Int, iterations: UInt64,
        behaviour: StrategyBehaviour = StrategyBehaviour(), baseline: String? = nil, order: String = "rows"
    ) {
        self.order = order
        self.baseline = baseline
        self.behaviour = behaviour
        self.strategy = strategy
        self.wall = SampleStatistics(wallSeconds)
        self.userSeconds = userSeconds
        self.systemSeconds = systemSeconds
        self.workers = workers
        self.threadsUsed = threadsUsed
        self.imbalance = imbalance
        self.checksum = checksum
        self.pixels = pixels
        self.iterations = iterations
    }

    /// Megapixels per second at the median wall time.
    package var megapixelsPerSecond: Double { Double(pixels) / wall.median / 1e6 }

    /// Iterations per second at the median wall time.
    package var iterationsPerSecond: Double { Double(iterations) / wall.median }

    /// The checksum as 16 hex digits.
    package var checksumText: String { NumberFormat.checksum(checksum) }
}
