package import MandelbrotCore

/// How a strategy behaved beyond its speed, over its counted runs: the main queue's
/// lateness, the process's threads and memory, and how it stopped when cancelled.
package struct StrategyBehaviour: Sendable {
    /// How late the main queue's heartbeat ran, over every counted run.
    ///
    /// The figures are nil (null in JSON) when no tick was due while the runs ran (runs
    /// shorter than the heartbeat's interval): nothing was measured, which is not zero lateness.
    package struct MainQueue: Sendable, Encodable, Equatable {
        /// Median lateness, in seconds.
        package let p50: Double?
        /// 99th percentile, in seconds.
        package let p99: Double?
        /// The largest lateness, in seconds.
        package let max: Double?
        /// Whole 60 Hz frames spent waiting for a tick that was due.
        package let missedFrames: Int?
        /// Ticks that ran.
        package let ticks: Int

        /// Figures measured over `ticks` ticks.
        package init(p50: Double, p99: Double, max: Double, missedFrames: Int, ticks: Int) {
            self.p50 = p50
            self.p99 = p99
            self.max = max
            self.missedFrames = missedFrames
            self.ticks = ticks
        }

        /// Nothing measured: no tick was due while the runs ran.
        package static let noTicks = MainQueue(unmeasured: ())

        private init(unmeasured: Void) {
            (p50, p99, max, missedFrames, ticks) = (nil, nil, nil, nil, 0)
        }

        private enum CodingKeys: String, CodingKey { case p50, p99, max, missedFrames, ticks }

        /// Every key, with null for a figure that was not measured.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(p50, forKey: .p50)
            try container.encode(p99, forKey: .p99)
            try container.encode(max, forKey: .max)
            try container.encode(missedFrames, forKey: .missedFrames)
            try container.encode(ticks, forKey: .ticks)
        }
    }

    /// How the runs stopped after a planned cancel (medians over the runs, the most for threads left).
    package struct Cancel: Sendable, Equatable {
        /// Seconds from the request to the completion on the main queue.
        package let latency: Double
        /// Tiles started after the request.
        package let tilesAfterCancel: Double
        /// Processor seconds used after the request.
        package let cpuAfterCancel: Double
        /// The most threads still running just after a completion.
        package let threadsRunningAfter: Int
        /// Runs that finished before the cancel came.
        package let finishedFirst: Int

        package init(
            latency: Double, tilesAfterCancel: Double, cpuAfterCancel: Double, threadsRunningAfter: Int,
            finishedFirst: Int
        ) {
            self.latency = latency
            self.tilesAfterCancel = tilesAfterCancel
            self.cpuAfterCancel = cpuAfterCancel
            self.threadsRunningAfter = threadsRunningAfter
            self.finishedFirst = finishedFirst
        }
    }

    /// Nil with `--heartbeat off`.
    package var mainQueue: MainQueue?
    /// The most threads the process had during any counted run; nil if not sampled.
    package var peakThreads: Int?
    /// The most resident memory during any counted run, in bytes; nil if not sampled.
    package var peakResidentBytes: Int?
    /// Nil unless the runs were cancelled on purpose.
    package var cancel: Cancel?
    /// One sampled run's threads over time: one value per 10 ms, for the threads chart.
    package var threadsOverTime: [Int]
    /// What merging the histogram cost, medians over the runs of each figure; nil unless the picture
    /// is histogram-coloured.
    package var merge: MergeStatistics?
    /// Seconds until the tiles of the picture's central quarter were done (median over the runs).
    package var centreDoneSeconds: Double?
    /// With a preview, seconds until it was delivered on the main queue (median over the runs).
    package var firstPictureSeconds: Double?
    /// For a deep zoom, the serial parts' share of the wall time (the reference orbit and its
    /// table: median over the runs); nil where Double renders the view.
    package var serialShare: Double?

    package init(
        mainQueue: MainQueue? = nil, peakThreads: Int? = nil, peakResidentBytes: Int? = nil, cancel: Cancel? = nil,
        threadsOverTime: [Int] = []
    ) {
        self.mainQueue = mainQueue
        self.peakThreads = peakThreads
        self.peakResidentBytes = peakResidentBytes
        self.cancel = cancel
        self.threadsOverTime = threadsOverTime
    }
}
