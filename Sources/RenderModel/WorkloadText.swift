package import Comparison
import Foundation
package import MandelOptions
package import MandelbrotCore

/// The words `compare` and `sweep` use for a workload and its outcome.
package enum WorkloadText {
    /// The first line: what is measured, and how.
    package static func describe(_ job: RenderJob, warmup: Int, runs: Int, sweeping axis: SweepAxis? = nil) -> String {
        let region: String =
            switch job.region {
            case .benchmarksGame: "benchmarks-game preset"
            case .view(let viewport):
                "center \(ViewText.center(of: job, viewport)), zoom \(ViewText.zoom(of: job, viewport))"
            }
        let split = axis == .tile ? "tiles (swept)" : job.splitLabel
        let workers = axis == .workers ? "workers swept" : Self.workers(job)
        return
            "\(job.size), \(region), \(job.iterations) iterations, \(job.colorScheme.rawValue), \(split), \(workers), "
            + "\(job.kernel.rawValue) kernel; \(warmup) warm-up + \(runs) counted runs each, interleaved"
            + (axis == nil ? "" : " across the points")
    }

    /// What `--tile-wait` and `--cancel-after` add to the workload, as a clause to append; empty without them.
    package static func describe(_ behaviour: BehaviourOptions) -> String {
        var text = ""
        if behaviour.tileWaitMilliseconds > 0 {
            text +=
                ", each tile waits \(NumberFormat.compact(behaviour.tileWaitMilliseconds)) ms "
                + "(\(behaviour.wait.mode.rawValue))"
        }
        if let cancelAfter = behaviour.cancelAfter {
            text += ", cancelled after \(NumberFormat.compact(cancelAfter)) ms (\(behaviour.cancellationMode.rawValue))"
        }
        return text
    }

    /// How the histogram is shared, as a clause to append; empty unless the job colours by histogram.
    package static func describe(
        _ sharing: SharingOptions, for job: RenderJob, sweeping axis: SweepAxis? = nil
    ) -> String {
        guard job.colorScheme == .histogram else { return "" }
        let batches = axis == .mergeBatch ? "batches swept" : "batches of \(sharing.batch)"
        return ", histogram merged by \(sharing.merges.map(\.rawValue).joined(separator: ", ")) in \(batches)"
    }

    /// What merging a histogram cost in one run: `merge mutex, batch 256: 1,234 batches, merging 3.2 ms, waiting 0.4
    /// ms`.
    package static func describe(_ merge: MergeStatistics) -> String {
        "merge \(merge.sharing.merge.rawValue), batch \(merge.sharing.batch): \(merge.batches) "
            + "batch\(merge.batches == 1 ? "" : "es"), merging \(NumberFormat.seconds(merge.mergeSeconds)), "
            + "waiting \(NumberFormat.seconds(merge.waitSeconds))"
    }

    /// One sentence a reader can take in at a glance.
    package static func summary(of comparison: StrategyComparison) -> String {
        let fastest = comparison.fastest
        guard comparison.hasVerdicts else {
            return "\(fastest.strategy) has the lowest median (\(NumberFormat.milliseconds(fastest.wall.median)) ms), "
                + "but too few runs for a verdict: use --runs \(SampleStatistics.minimumSamplesForInterval) or more."
        }
        var sentence = "\(fastest.strategy) is fastest at \(NumberFormat.milliseconds(fastest.wall.median)) ms median"
        if let speedup = comparison.speedup(of: fastest) {
            sentence += String(format: ", %.2fx %@", speedup, comparison.baselineName(for: fastest))
        }
        let others = comparison.results.filter { $0.strategy != fastest.strategy }
        let same = others.filter { comparison.verdict(of: $0) == .sameWithinNoise }.map(\.strategy)
        let slower = others.compactMap { result -> String? in
            if case .slower(let fraction) = comparison.verdict(of: result),
                result.strategy != comparison.baselineName(for: result)
            {
                return "\(result.strategy) +\(Int((fraction * 100).rounded()))%"
            }
            return nil
        }
        if !same.isEmpty { sentence += "; the same within noise: \(same.joined(separator: ", "))" }
        if !slower.isEmpty { sentence += "; slower: \(slower.joined(separator: ", "))" }
        sentence += "."
        // Amdahl: the reference orbit and its table are serial whatever the strategy, so their share of
        // a one-worker row's time bounds what the most workers measured can gain over it.
        if let oneWorker = comparison.results.first(where: { $0.workers == 1 }),
            let serial = oneWorker.behaviour.serialShare, let workers = comparison.results.map(\.workers).max(),
            workers > 1
        {
            let bound = DeepText.amdahlBound(serialShare: serial, workers: workers)
            sentence +=
                " The reference orbit and its table are serial: \(Int((serial * 100).rounded()))% of "
                + "\(oneWorker.strategy)'s wall, so \(workers) workers can be at most "
                + "\(NumberFormat.decimal(bound))x \(oneWorker.strategy)."
        }
        return sentence
    }

    /// The workload as the JSON export records it.
    package static func exportDescription(_ job: RenderJob, warmup: Int, runs: Int) -> ComparisonExport.Workload {
        var viewport: Viewport?
        if case .view(let view) = job.region { viewport = view }
        return ComparisonExport.Workload(
            width: job.size.width, height: job.size.height,
            region: job.isBenchmarksGame ? "benchmarks-game" : "view",
            center: viewport.map { [$0.centerReal, $0.centerImaginary] },
            zoom: viewport.flatMap { ViewText.zoomNumber(of: job, $0) },
            centerText: viewport.map { ViewText.center(of: job, $0) },
            zoomText: viewport.map { ViewText.zoom(of: job, $0) },
            iterations: job.iterations, color: job.colorScheme.rawValue, kernel: job.kernel.rawValue,
            split: job.split.rawValue, tile: job.tileSize.description, workers: job.plan().workerCount,
            workersRequested: job.workers, warmup: warmup, runs: runs)
    }

    /// The workers the plan keeps busy, as every output states them (docs/reliability.md,
    /// "What workers means"), and the request when the plan keeps fewer busy.
    package static func workers(_ job: RenderJob) -> String {
        let planned = job.plan().workerCount
        let text = "\(planned) worker\(planned == 1 ? "" : "s")"
        return planned == job.workers ? text : text + " (\(job.workers) asked; no more than a band has tiles)"
    }
}
