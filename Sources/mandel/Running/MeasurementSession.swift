import Comparison
import Dispatch
import MandelbrotCore
import Platform
import StrategyCatalog

/// Runs strategies on one workload, interleaved (A B C A B C …), and collects their results.
///
/// Interleaving spreads the drift of a shared machine over every strategy
/// alike. Every run renders the whole picture into the same buffer; no
/// picture is encoded, so libpng never enters a timing. Each counted run's
/// pixels are checksummed as soon as it completes, and all must agree.
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

    /// What one counted run leaves behind: its numbers, not its tile records.
    private struct Run {
        let wall: Double
        let cpu: CPUTime
        let threadsUsed: Int
        let imbalance: Double
        let iterations: UInt64
        let workers: Int
    }

    /// Measures every entry; `lastRun` receives each entry's final picture and report.
    ///
    /// - Throws: ``RenderCancelled`` on a stop, or a ``RenderFailure``.
    func measure(
        lastRun: (Entry, PixelBuffer, RenderReport) throws -> Void = { _, _, _ in }
    ) async throws -> StrategyComparison {
        let render = try PictureRender(job: job, cancellation: cancellation)
        var counted = [[Run]](repeating: [], count: entries.count)
        var checksums = [Set<UInt64>](repeating: [], count: entries.count)
        var afterWarmup = ProcessSnapshot.now()
        for round in 0..<(warmup + runs) {
            if round == warmup { afterWarmup = ProcessSnapshot.now() }
            for (index, entry) in entries.enumerated() {
                // The meter counts tiles through its dispatch source but never draws here.
                let meter = entry.reportsProgress ? ProgressMeter(totalTiles: render.tilesPerRun, display: .none) : nil
                var onTileFinished: (@Sendable () -> Void)?
                if let meter { onTileFinished = { meter.tileFinished() } }
                let report = try await render.run(entry.strategy, onTileFinished: onTileFinished)
                dispatchPrecondition(condition: .onQueue(.main))
                meter?.finish()
                guard round >= warmup else { continue }
                counted[index].append(
                    Run(
                        wall: report.wallSeconds, cpu: report.cpu, threadsUsed: report.threadsUsed,
                        imbalance: report.imbalance,
                        iterations: report.totalIterations, workers: report.plannedWorkers))
                checksums[index].insert(render.canvas!.checksum)
                if round == warmup + runs - 1 { try lastRun(entry, render.canvas!, report) }
            }
        }
        let growth = ProcessGrowth(afterWarmup: afterWarmup, atEnd: ProcessSnapshot.now())
        return StrategyComparison(
            baselineName: StrategyCatalog.baseline.name, process: growth,
            results: entries.indices.map { index in
                let runs = counted[index]
                let imbalances = runs.map(\.imbalance).sorted()
                return StrategyResult(
                    strategy: entries[index].name,
                    wallSeconds: runs.map(\.wall),
                    userSeconds: runs.map(\.cpu.user).reduce(0, +) / Double(runs.count),
                    systemSeconds: runs.map(\.cpu.system).reduce(0, +) / Double(runs.count),
                    workers: runs[0].workers,
                    threadsUsed: runs.map(\.threadsUsed).max() ?? 0,
                    imbalance: imbalances[imbalances.count / 2],
                    // A strategy whose runs disagree among themselves gets a checksum no other can match.
                    checksum: checksums[index].count == 1 ? checksums[index].first! : 0,
                    pixels: job.size.pixelCount,
                    iterations: runs[0].iterations)
            })
    }
}

/// Fails with exit code 70 if any strategy's pixels differ from the baseline's.
func ensureIdenticalPixels(_ comparison: StrategyComparison) throws {
    let mismatched = comparison.mismatchedStrategies
    guard mismatched.isEmpty else {
        throw CommandRun.PixelMismatch(
            description:
                "strategies produced different pixels: \(mismatched.joined(separator: ", ")) differ from "
                + "\(comparison.results[0].strategy) (a bug; please report it)"
        )
    }
}
