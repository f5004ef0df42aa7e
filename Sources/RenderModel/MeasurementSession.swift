package import Comparison
import Dispatch
package import MandelOptions
package import MandelbrotCore
import Platform
import Probes
import StrategyCatalog

/// Runs strategies on one workload, interleaved (A B C A B C …), and collects their results.
///
/// Interleaving spreads the drift of a shared machine over every strategy
/// alike. Every run renders the whole picture into the same buffer; no
/// picture is encoded, so libpng never enters a timing. Each counted run's
/// pixels are checksummed as soon as it completes, and all must agree.
@MainActor
package struct MeasurementSession {
    /// One row of the comparison: a strategy, optionally with the progress source attached
    /// or the heartbeat left out (to measure what each costs), merging a histogram one way.
    package struct Entry {
        package let strategy: any RenderStrategy
        package var reportsProgress = false
        package var heartbeat = true
        package var sharing = HistogramSharing.standard
        package var order = TileOrder.rows
        /// Whether the name says the merge mechanism: when rows differ by it.
        package var namesMerge = false
        /// Whether the name says the tile order: when rows differ by it.
        package var namesOrder = false

        package init(
            strategy: any RenderStrategy, reportsProgress: Bool = false, heartbeat: Bool = true,
            sharing: HistogramSharing = HistogramSharing.standard, order: TileOrder = TileOrder.rows,
            namesMerge: Bool = false, namesOrder: Bool = false
        ) {
            self.strategy = strategy
            self.reportsProgress = reportsProgress
            self.heartbeat = heartbeat
            self.sharing = sharing
            self.order = order
            self.namesMerge = namesMerge
            self.namesOrder = namesOrder
        }

        /// What the name adds for the order and the merge when rows differ by them: `/centre/mutex`.
        package var variant: String {
            (namesOrder ? "/\(order.rawValue)" : "") + (namesMerge ? "/\(sharing.merge.rawValue)" : "")
        }

        /// The row's name: the strategy's, with `+progress` when the progress source is
        /// attached, `/no-heartbeat` when the heartbeat is left out, and the ``variant``.
        package var name: String {
            strategy.name + (reportsProgress ? "+progress" : "") + (heartbeat ? "" : "/no-heartbeat") + variant
        }

        /// The row's name as a file name: `/` (which would name a folder) becomes `-`.
        package var fileName: String { name.replacing("/", with: "-") }

        /// The row this one's speedup is measured against when it has a variant: the baseline's with the same.
        package var baseline: String? { variant.isEmpty ? nil : StrategyCatalog.baseline.name + variant }

        /// One entry per strategy, order and sharing, strategy by strategy; names say the order
        /// and the merge when there are several.
        package static func grid(
            _ strategies: [any RenderStrategy], orders: [TileOrder] = [.rows], sharings: [HistogramSharing]
        ) -> [Entry] {
            strategies.flatMap { strategy in
                orders.flatMap { order in
                    sharings.map {
                        Entry(
                            strategy: strategy, sharing: $0, order: order, namesMerge: sharings.count > 1,
                            namesOrder: orders.count > 1)
                    }
                }
            }
        }
    }

    package let entries: [Entry]
    package let job: RenderJob
    package let warmup: Int
    package let runs: Int
    package let cancellation: CancellationFlag
    package let behaviour: BehaviourOptions
    /// Every how many pixels a preview samples before each run's full picture, if at all.
    package var previewEvery: Int? = nil

    package init(
        entries: [Entry], job: RenderJob, warmup: Int, runs: Int, cancellation: CancellationFlag,
        behaviour: BehaviourOptions, previewEvery: Int? = nil
    ) {
        self.entries = entries
        self.job = job
        self.warmup = warmup
        self.runs = runs
        self.cancellation = cancellation
        self.behaviour = behaviour
        self.previewEvery = previewEvery
    }

    /// What one counted run leaves behind: its numbers, not its tile records.
    private struct Run {
        let wall: Double
        let cpu: CPUTime
        let threadsUsed: Int
        let imbalance: Double
        let iterations: UInt64
        /// The finished tiles' pixels: the picture's, unless the run was cancelled on purpose.
        let pixels: Int
        let workers: Int
    }

    /// One entry's behaviour, added up run by run: a run's own histogram and samples are
    /// let go as soon as they are counted (a hundred runs must not hold a hundred histograms).
    private struct BehaviourTotals {
        var lateness: MainQueueLateness?
        var peakThreads: Int?
        var peakResidentBytes: Int?
        var lastThreads: [Int] = []
        var cancels: [CancelOutcome] = []
        var merges: [MergeStatistics] = []
        var centreDone: [Double] = []
        var firstPicture: [Double] = []
        var serialShares: [Double] = []
        var runs = 0

        mutating func add(_ run: RunBehaviour) {
            runs += 1
            if let later = run.mainQueue { lateness = lateness.map { $0.merged(with: later) } ?? later }
            if let samples = run.samples {
                peakThreads = max(peakThreads ?? 0, samples.peakThreads)
                peakResidentBytes = max(peakResidentBytes ?? 0, samples.peakResidentBytes)
                lastThreads = samples.windows.map(\.threads)
            }
            if let cancel = run.cancel { cancels.append(cancel) }
        }

        mutating func add(_ report: RenderReport) {
            if let merge = report.merge { merges.append(merge) }
            if let centre = report.centreDoneSeconds { centreDone.append(centre) }
            if let first = report.firstPictureSeconds { firstPicture.append(first) }
            if let phases = report.deepPhases {
                serialShares.append(DeepText.serialShare(phases, wallSeconds: report.wallSeconds))
            }
        }

        var summary: StrategyBehaviour {
            let median = SampleStatistics.median
            var summary = StrategyBehaviour(
                peakThreads: peakThreads, peakResidentBytes: peakResidentBytes, threadsOverTime: lastThreads)
            summary.mainQueue = lateness.map(StrategyBehaviour.MainQueue.init)
            if !centreDone.isEmpty { summary.centreDoneSeconds = median(centreDone) }
            if !firstPicture.isEmpty { summary.firstPictureSeconds = median(firstPicture) }
            if !serialShares.isEmpty { summary.serialShare = median(serialShares) }
            if let first = merges.first {
                summary.merge = MergeStatistics(
                    sharing: first.sharing, batches: Int(median(merges.map { Double($0.batches) })),
                    values: UInt64(median(merges.map { Double($0.values) })),
                    mergeSeconds: median(merges.map(\.mergeSeconds)), waitSeconds: median(merges.map(\.waitSeconds)))
            }
            if !cancels.isEmpty {
                summary.cancel = .init(
                    latency: median(cancels.map(\.latencySeconds)),
                    tilesAfterCancel: median(cancels.map { Double($0.tilesStartedAfter) }),
                    cpuAfterCancel: median(cancels.map(\.cpuAfterSeconds)),
                    threadsRunningAfter: cancels.map(\.threadsRunningAfter).max()!,
                    finishedFirst: runs - cancels.count)
            }
            return summary
        }
    }

    /// Measures every entry; `lastRun` receives each entry's final picture and report.
    ///
    /// - Throws: ``RenderCancelled`` on a stop, or a ``RenderFailure``.
    package func measure(
        lastRun: (Entry, PixelBuffer, RenderReport) throws -> Void = { _, _, _ in }
    ) async throws -> StrategyComparison {
        try await Self.measure([self]) { run in
            if run.isLast { try lastRun(run.entry, run.canvas, run.report) }
        }[0]
    }

    /// A counted run, as ``measure(_:afterEachRun:)`` hands it over.
    package struct CountedRun {
        /// Which of the sessions measured it.
        package let session: Int
        package let entry: Entry
        /// Its number among the entry's counted runs, from 0.
        package let round: Int
        /// Whether it is the entry's last run.
        package let isLast: Bool
        /// Its picture, until the entry's next run (or the session's next entry's) replaces it.
        package let canvas: PixelBuffer
        package let report: RenderReport
    }

    /// What one session has measured so far, between rounds.
    private final class Tally {
        let render: PictureRender
        let observer: ObservedRun
        var counted: [[Run]]
        var checksums: [Set<UInt64>]
        var behaviours: [BehaviourTotals]

        init(_ session: MeasurementSession) throws {
            render = try PictureRender(
                job: session.job, histogramMerges: session.entries.map(\.sharing.merge),
                strategies: session.entries.map(\.strategy), previewEvery: session.previewEvery,
                cancellation: session.cancellation)
            observer = ObservedRun(behaviour: session.behaviour, signals: session.cancellation)
            counted = [[Run]](repeating: [], count: session.entries.count)
            checksums = [Set<UInt64>](repeating: [], count: session.entries.count)
            behaviours = [BehaviourTotals](repeating: BehaviourTotals(), count: session.entries.count)
        }
    }

    /// Measures several sessions (a sweep's points) round by round: round r of every session before round
    /// r + 1 of any, so that the machine's drift over the whole measurement hits every session alike, as it
    /// hits every entry of one. They share `warmup` and `runs`; each keeps its own picture for the whole
    /// measurement. The process's growth is the whole measurement's, after every session's warm-up.
    ///
    /// - Throws: ``RenderCancelled`` on a stop, or a ``RenderFailure``.
    package static func measure(
        _ sessions: [MeasurementSession], afterEachRun: (CountedRun) throws -> Void = { _ in }
    ) async throws -> [StrategyComparison] {
        guard let first = sessions.first else { return [] }
        precondition(sessions.allSatisfy { $0.warmup == first.warmup && $0.runs == first.runs })
        let (warmup, runs) = (first.warmup, first.runs)
        let tallies = try sessions.map(Tally.init)
        var afterWarmup = ProcessSnapshot.now()
        for round in 0..<(warmup + runs) {
            if round == warmup { afterWarmup = ProcessSnapshot.now() }
            for (index, (session, tally)) in zip(sessions, tallies).enumerated() {
                try await session.runRound(round, into: tally) { entry, canvas, report in
                    try afterEachRun(
                        CountedRun(
                            session: index, entry: entry, round: round - warmup, isLast: round == warmup + runs - 1,
                            canvas: canvas, report: report))
                }
            }
        }
        let growth = ProcessGrowth(afterWarmup: afterWarmup, atEnd: ProcessSnapshot.now())
        return zip(sessions, tallies).map { $0.comparison(of: $1, growth: growth) }
    }

    /// Runs every entry once, in turn, counting the run unless `round` is a warm-up; `counted` receives
    /// each counted run.
    private func runRound(
        _ round: Int, into tally: Tally, counted: (Entry, PixelBuffer, RenderReport) throws -> Void
    ) async throws {
        let render = tally.render
        for (index, entry) in entries.enumerated() {
            // The meter counts tiles through its dispatch source but never draws here.
            let meter = entry.reportsProgress ? ProgressMeter(totalTiles: render.tilesPerRun, display: .none) : nil
            var onTileFinished: (@Sendable () -> Void)?
            if let meter { onTileFinished = { meter.tileFinished() } }
            let outcome = try await tally.observer.run(heartbeat: entry.heartbeat) { flag, plannedStop in
                try await render.run(
                    entry.strategy, settings: behaviour.settings(sharing: entry.sharing, order: entry.order),
                    cancellation: flag, onTileFinished: onTileFinished, plannedStop: plannedStop)
            }
            let report = outcome.report
            dispatchPrecondition(condition: .onQueue(.main))
            meter?.finish()
            guard round >= warmup else { continue }
            tally.counted[index].append(
                Run(
                    wall: report.wallSeconds, cpu: report.cpu, threadsUsed: report.threadsUsed,
                    imbalance: report.imbalance,
                    iterations: report.totalIterations,
                    pixels: behaviour.cancelAfter == nil
                        ? job.size.pixelCount
                        : report.tiles.reduce(0) { $0 + ($1.isFinished ? $1.rect.width * $1.rect.height : 0) },
                    workers: report.plannedWorkers))
            tally.behaviours[index].add(outcome.behaviour)
            tally.behaviours[index].add(report)
            // A run cancelled on purpose has an unfinished picture: its pixels are not compared.
            if behaviour.cancelAfter == nil { tally.checksums[index].insert(render.canvas!.checksum) }
            try counted(entry, render.canvas!, report)
        }
    }

    /// The comparison `tally` adds up to.
    private func comparison(of tally: Tally, growth: ProcessGrowth) -> StrategyComparison {
        StrategyComparison(
            baselineName: StrategyCatalog.baseline.name, process: growth,
            results: entries.indices.map { index in
                let runs = tally.counted[index]
                let imbalances = runs.map(\.imbalance).sorted()
                let checksums = tally.checksums[index]
                return StrategyResult(
                    strategy: entries[index].name,
                    wallSeconds: runs.map(\.wall),
                    userSeconds: runs.map(\.cpu.user).reduce(0, +) / Double(runs.count),
                    systemSeconds: runs.map(\.cpu.system).reduce(0, +) / Double(runs.count),
                    workers: runs[0].workers,
                    threadsUsed: runs.map(\.threadsUsed).max() ?? 0,
                    imbalance: imbalances[imbalances.count / 2],
                    // A strategy whose runs disagree among themselves gets a checksum no other can match
                    // (with --cancel-after, none is compared and every checksum is 0).
                    checksum: checksums.count == 1 ? checksums.first! : 0,
                    // The medians over runs: every run's, unless --cancel-after stopped them at different tiles.
                    pixels: runs.map(\.pixels).sorted()[runs.count / 2],
                    iterations: runs.map(\.iterations).sorted()[runs.count / 2],
                    behaviour: tally.behaviours[index].summary,
                    baseline: entries[index].baseline, order: entries[index].order.rawValue)
            })
    }
}

/// Fails with exit code 70 if any strategy's pixels differ from the baseline's.
package func ensureIdenticalPixels(_ comparison: StrategyComparison) throws {
    let mismatched = comparison.mismatchedStrategies
    guard mismatched.isEmpty else {
        throw CommandRun.PixelMismatch(
            description:
                "strategies produced different pixels: \(mismatched.joined(separator: ", ")) differ from "
                + "\(comparison.results[0].strategy) (a bug; please report it)"
        )
    }
}
