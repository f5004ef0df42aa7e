package import Foundation
import MandelbrotCore

/// The documented JSON and CSV forms of a comparison, in the style of hyperfine's export.
package struct ComparisonExport: Encodable {
    /// What was measured: the workload and how it was split.
    package struct Workload: Encodable, Sendable {
        package var width: Int
        package var height: Int
        package var region: String
        package var center: [Double]?
        /// Nil past the largest `Double` (see ``zoomText``).
        package var zoom: Double?
        /// The centre and zoom as the view was given: every digit, at any depth.
        package var centerText: String?
        package var zoomText: String?
        package var iterations: Int
        package var color: String
        package var kernel: String
        package var split: String
        package var tile: String
        /// The workers the plan keeps busy (what every output states; serial's rows have one).
        package var workers: Int
        /// The workers `--workers` asked for.
        package var workersRequested: Int
        package var warmup: Int
        package var runs: Int

        /// Creates a workload description.
        package init(
            width: Int, height: Int, region: String, center: [Double]?, zoom: Double?, centerText: String? = nil,
            zoomText: String? = nil, iterations: Int, color: String,
            kernel: String, split: String, tile: String, workers: Int, workersRequested: Int? = nil, warmup: Int,
            runs: Int
        ) {
            self.width = width
            self.height = height
            self.region = region
            self.center = center
            self.zoom = zoom
            self.centerText = centerText
            self.zoomText = zoomText
            self.iterations = iterations
            self.color = color
            self.kernel = kernel
            self.split = split
            self.tile = tile
            self.workers = workers
            self.workersRequested = workersRequested ?? workers
            self.warmup = warmup
            self.runs = runs
        }
    }

    /// One strategy's numbers.
    package struct Row: Encodable, Sendable {
        package let strategy: String
        package let times: [Double]
        package let min: Double
        package let median: Double
        package let max: Double
        package let mean: Double
        package let stddev: Double
        @OrNull package var medianCI: [Double]?
        package let user: Double
        package let system: Double
        @OrNull package var speedup: Double?
        @OrNull package var efficiency: Double?
        package let imbalance: Double
        package let workers: Int
        package let threadsUsed: Int
        package let megapixelsPerSecond: Double
        package let iterationsPerSecond: Double
        package let checksum: String
        package let verdict: String
        @OrNull package var mainQueue: StrategyBehaviour.MainQueue?
        @OrNull package var peakThreads: Int?
        @OrNull package var peakResidentBytes: Int?
        @OrNull package var cancelLatency: Double?
        @OrNull package var tilesAfterCancel: Double?
        @OrNull package var cpuAfterCancel: Double?
        @OrNull package var threadsRunningAfterCancel: Int?
        package let order: String
        @OrNull package var centreDoneSeconds: Double?
        @OrNull package var firstPictureSeconds: Double?
        @OrNull package var merge: String?
        @OrNull package var mergeBatch: Int?
        @OrNull package var mergeBatches: Int?
        @OrNull package var mergeSeconds: Double?
        @OrNull package var mergeWaitSeconds: Double?
        @OrNull package var serialShare: Double?

        init(_ result: StrategyResult, in comparison: StrategyComparison) {
            strategy = result.strategy
            times = result.wall.values
            min = result.wall.min
            median = result.wall.median
            max = result.wall.max
            mean = result.wall.mean
            stddev = result.wall.standardDeviation
            medianCI = result.wall.medianInterval.map { [$0.lowerBound, $0.upperBound] }
            user = result.userSeconds
            system = result.systemSeconds
            speedup = comparison.speedup(of: result)
            efficiency = comparison.efficiency(of: result)
            imbalance = result.imbalance
            workers = result.workers
            threadsUsed = result.threadsUsed
            megapixelsPerSecond = result.megapixelsPerSecond
            iterationsPerSecond = result.iterationsPerSecond
            checksum = result.checksumText
            verdict = comparison.verdict(of: result).description
            let behaviour = result.behaviour
            mainQueue = behaviour.mainQueue
            peakThreads = behaviour.peakThreads
            peakResidentBytes = behaviour.peakResidentBytes
            cancelLatency = behaviour.cancel?.latency
            tilesAfterCancel = behaviour.cancel?.tilesAfterCancel
            cpuAfterCancel = behaviour.cancel?.cpuAfterCancel
            threadsRunningAfterCancel = behaviour.cancel?.threadsRunningAfter
            order = result.order
            centreDoneSeconds = behaviour.centreDoneSeconds
            firstPictureSeconds = behaviour.firstPictureSeconds
            merge = behaviour.merge?.sharing.merge.rawValue
            mergeBatch = behaviour.merge?.sharing.batch
            mergeBatches = behaviour.merge?.batches
            mergeSeconds = behaviour.merge?.mergeSeconds
            mergeWaitSeconds = behaviour.merge?.waitSeconds
            serialShare = behaviour.serialShare
        }

        static let csvHeader =
            "strategy,median,min,max,mean,stddev,median_ci_low,median_ci_high,user,system,speedup,efficiency,"
            + "imbalance,workers,threads_used,megapixels_per_second,iterations_per_second,checksum,verdict,"
            + "main_queue_p50,main_queue_p99,main_queue_max,missed_frames,heartbeat_ticks,peak_threads,"
            + "peak_resident_bytes,cancel_latency,tiles_after_cancel,cpu_after_cancel,threads_running_after_cancel,"
            + "order,centre_done_seconds,first_picture_seconds,merge,merge_batch,merge_batches,merge_seconds,"
            + "merge_wait_seconds,serial_share"

        var csvLine: String {
            func number(_ value: Double?) -> String { value.map { String($0) } ?? "" }
            func integer(_ value: Int?) -> String { value.map { String($0) } ?? "" }
            return [
                strategy, number(median), number(min), number(max), number(mean), number(stddev),
                number(medianCI?[0]), number(medianCI?[1]), number(user), number(system), number(speedup),
                number(efficiency), number(imbalance), "\(workers)", "\(threadsUsed)", number(megapixelsPerSecond),
                number(iterationsPerSecond), checksum, verdict,
                number(mainQueue?.p50), number(mainQueue?.p99), number(mainQueue?.max),
                integer(mainQueue?.missedFrames), integer(mainQueue?.ticks), integer(peakThreads),
                integer(peakResidentBytes), number(cancelLatency), number(tilesAfterCancel), number(cpuAfterCancel),
                integer(threadsRunningAfterCancel), order, number(centreDoneSeconds), number(firstPictureSeconds),
                merge ?? "", integer(mergeBatch),
                integer(mergeBatches),
                number(mergeSeconds), number(mergeWaitSeconds), number(serialShare),
            ].joined(separator: ",")
        }
    }

    /// One point of a sweep: the value of the swept axis and the rows measured there.
    package struct Point: Encodable, Sendable {
        package let workers: Int?
        package let tile: String?
        /// Seconds each tile waited, for a sweep over `--tile-wait`.
        package let tileWait: Double?
        /// Values per merge batch, for a sweep over `--merge-batch`.
        package let mergeBatch: Int?
        package let results: [Row]
    }

    package let command: String
    package let workload: Workload
    package let machine: MachineDescription
    package let time: String
    /// For `compare`: the rows. For `sweep`: empty, see `points`.
    package let results: [Row]
    /// For `sweep`: one entry per value of the swept axis.
    package let points: [Point]?
    /// For `compare`: the process's threads and resident memory after the warm-up and at the end.
    package let process: ProcessGrowth?
    /// For `sweep --workers` with a point at 1 worker: each strategy's scaling model (``ScalingModel``).
    package let scaling: [ScalingModel.Export]?

    /// The export of a `compare` run.
    package init(
        compare comparison: StrategyComparison, workload: Workload, machine: MachineDescription, date: Date = Date()
    ) {
        command = "compare"
        self.workload = workload
        self.machine = machine
        time = ISO8601DateFormatter().string(from: date)
        results = comparison.results.map { Row($0, in: comparison) }
        points = nil
        process = comparison.process
        scaling = nil
    }

    /// The export of a `sweep` run: each point's comparison, keyed by workers or tile.
    package init(
        sweep: [(workers: Int?, tile: String?, tileWait: Double?, mergeBatch: Int?, comparison: StrategyComparison)],
        workload: Workload,
        machine: MachineDescription, date: Date = Date()
    ) {
        command = "sweep"
        self.workload = workload
        self.machine = machine
        time = ISO8601DateFormatter().string(from: date)
        results = []
        process = nil
        let workerPoints = sweep.compactMap { point in point.workers.map { ($0, point.comparison) } }
        let fits = workerPoints.count == sweep.count ? ScalingModel.fits(workerPoints) : []
        scaling = fits.isEmpty ? nil : ScalingModel.export(fits)
        points = sweep.map { point in
            Point(
                workers: point.workers, tile: point.tile, tileWait: point.tileWait, mergeBatch: point.mergeBatch,
                results: point.comparison.results.map { Row($0, in: point.comparison) })
        }
    }

    /// Pretty-printed JSON with sorted keys.
    package var json: Data { JSONOutput.encode(self, pretty: true) }

    /// One CSV line per strategy (per point and strategy for a sweep), with a header.
    package var csv: String {
        if let points {
            // The table stays one table: each row carries its strategy's scaling fit (the same on every
            // point), empty where there is none (no point at 1 worker, or another axis swept).
            let fits = Dictionary((scaling ?? []).map { ($0.strategy, $0) }, uniquingKeysWith: { first, _ in first })
            let lines = points.flatMap { point in
                point.results.map {
                    "\(point.workers.map(String.init) ?? ""),\(point.tile ?? ""),"
                        + "\(point.tileWait.map { String($0) } ?? ""),\($0.csvLine),"
                        + (fits[$0.strategy]?.csvFields ?? ScalingModel.Export.emptyCSVFields)
                }
            }
            // A sweep over --merge-batch needs no column of its own: each row has its merge_batch.
            // The point's own columns are named point_…: a row has its own workers column.
            let header =
                "point_workers,point_tile,point_tile_wait," + Row.csvHeader + ","
                + ScalingModel.Export.csvHeader
            return ([header] + lines).joined(separator: "\n") + "\n"
        }
        return ([Row.csvHeader] + results.map(\.csvLine)).joined(separator: "\n") + "\n"
    }
}
