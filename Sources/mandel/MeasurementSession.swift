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
    let strategies: [any RenderStrategy]
    let job: RenderJob
    let warmup: Int
    let runs: Int
    let cancellation: CancellationFlag

    /// Thrown when Ctrl-C stops the measurement.
    struct Interrupted: Error {}

    /// Measures every strategy; `progress` hears about each counted run.
    func measure(progress: (String, Int) -> Void = { _, _ in }) async throws -> StrategyComparison {
        let canvases = strategies.map { _ in PixelBuffer(size: job.size, channels: job.colorScheme.channels) }
        var reports = [[RenderReport]](repeating: [], count: strategies.count)
        var checksums = [Set<UInt64>](repeating: [], count: strategies.count)
        for round in 0..<(warmup + runs) {
            for (index, strategy) in strategies.enumerated() {
                let work = RenderWork(job: job, canvas: canvases[index], cancellation: cancellation)
                let report = await StrategyRunner.run(strategy, work: work)
                dispatchPrecondition(condition: .onQueue(.main))
                if report.wasCancelled { throw Interrupted() }
                guard round >= warmup else { continue }
                reports[index].append(report)
                checksums[index].insert(canvases[index].checksum)
                progress(strategy.name, round - warmup + 1)
            }
        }
        return StrategyComparison(results: strategies.indices.map { index in
            let runs = reports[index]
            let imbalances = runs.map(\.imbalance).sorted()
            return StrategyResult(
                strategy: strategies[index].name,
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
