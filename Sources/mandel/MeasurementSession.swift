import Comparison
import Dispatch
import MandelbrotCore

/// Runs strategies on one workload, interleaved (A B C A B C …), and collects their results.
///
/// Interleaving spreads the drift of a shared machine over every strategy
/// alike. Each run renders into the strategy's own canvas; no picture is
/// encoded, so libpng never enters a timing. Every counted run's pixels are
/// checksummed, and all must agree.
@MainActor
struct MeasurementSession {
    /// One row of the comparison: a strategy, optionally with the progress source attached.
    struct Entry {
        let strategy: any RenderStrategy
        let reportsProgress: Bool

        /// The row's name: the strategy's, with `+progress` when the progress source is attached.
        var name: String { strategy.name + (reportsProgress ? "+progress" : "") }
    }

    let entries: [Entry]
    let job: RenderJob
    let warmup: Int
    let runs: Int
    let cancellation: CancellationFlag

    /// Thrown when Ctrl-C stops the measurement.
    struct Interrupted: Error {}

    /// Measures every entry; `lastRun` receives each entry's final canvas and report.
    func measure(lastRun: (Entry, PixelBuffer, RenderReport) throws -> Void = { _, _, _ in }) async throws -> StrategyComparison {
        let canvases = entries.map { _ in PixelBuffer(size: job.size, channels: job.colorScheme.channels) }
        let tileCount = WorkPlan(size: job.size, split: job.split, workers: job.workers, tileSize: job.tileSize).tiles.count
        var reports = [[RenderReport]](repeating: [], count: entries.count)
        var checksums = [Set<UInt64>](repeating: [], count: entries.count)
        var afterWarmup = ProcessSnapshot.now()
        for round in 0..<(warmup + runs) {
            if round == warmup { afterWarmup = ProcessSnapshot.now() }
            for (index, entry) in entries.enumerated() {
                // The meter counts tiles through its dispatch source but never draws here.
                let meter = entry.reportsProgress ? ProgressMeter(totalTiles: tileCount, draws: false) : nil
                var onTileFinished: (@Sendable () -> Void)?
                if let meter { onTileFinished = { meter.tileFinished() } }
                let work = RenderWork(job: job, canvas: canvases[index], cancellation: cancellation, onTileFinished: onTileFinished)
                let report = await StrategyRunner.run(entry.strategy, work: work)
                dispatchPrecondition(condition: .onQueue(.main))
                meter?.finish()
                if report.wasCancelled { throw Interrupted() }
                guard round >= warmup else { continue }
                reports[index].append(report)
                checksums[index].insert(canvases[index].checksum)
                if round == warmup + runs - 1 { try lastRun(entry, canvases[index], report) }
            }
        }
        let growth = ProcessGrowth(afterWarmup: afterWarmup, atEnd: ProcessSnapshot.now())
        return StrategyComparison(process: growth, results: entries.indices.map { index in
            let runs = reports[index]
            let imbalances = runs.map(\.imbalance).sorted()
            return StrategyResult(
                strategy: entries[index].name,
                wallSeconds: runs.map(\.wallSeconds),
                userSeconds: runs.map(\.cpu.user).reduce(0, +) / Double(runs.count),
                systemSeconds: runs.map(\.cpu.system).reduce(0, +) / Double(runs.count),
                workers: runs[0].plannedWorkers,
                threadsUsed: runs.map(\.threadsUsed).max() ?? 0,
                imbalance: imbalances[imbalances.count / 2],
                // A strategy whose runs disagree among themselves gets a checksum no other can match.
                checksum: checksums[index].count == 1 ? checksums[index].first! : 0,
                pixels: job.size.pixelCount,
                iterations: runs[0].totalIterations)
        })
    }
}
