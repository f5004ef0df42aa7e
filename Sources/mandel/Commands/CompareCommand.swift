import ArgumentParser
import Comparison
import ImageFiles
import MandelbrotCore
import Platform
import StrategyCatalog
import WorkVisuals

/// `mandel compare`: every strategy on the same workload, side by side.
struct CompareCommand: AsyncParsableCommand, ProcessNeeds {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Measure the strategies side by side on the same workload.",
        discussion: """
            Runs each strategy --warmup times uncounted, then --runs times counted, interleaved \
            (A B C A B C …) so that drift on a shared machine hits all of them alike. Prints one \
            row per strategy: wall time (median, min, max, standard deviation, a bootstrap 95% \
            interval for the median), CPU time, speedup against serial, parallel efficiency, \
            throughput, load balance, a checksum of the pixels and a verdict against the fastest. \
            No picture is encoded: libpng never enters a timing. Exits with 70 if two strategies \
            produce different pixels.
            """
    )

    @OptionGroup
    var options: WorkloadOptions

    @OptionGroup(title: "Measurement")
    var measurement: MeasurementOptions

    @Option(
        help: ArgumentHelp(
            "Write each row's ownership map (from its last run) into this existing folder as <row>.png, "
                + "with '-' for the '/' in a row's name (gcd-centre.png).",
            valueName: "folder"))
    var ownershipMaps: String?

    @Flag(
        help:
            "Add a row gcd+progress: gcd with the progress meter's tile counter attached (not drawn), to measure its cost."
    )
    var progressOverhead = false

    @Option(
        help: ArgumentHelp(
            "Write the process's threads over time, one line per strategy, as an SVG; - for standard output.",
            valueName: "file.svg"))
    var threadsChart: String?

    @Option(
        help: ArgumentHelp(
            "Write the main queue's lateness per strategy (p50, p99, max) as an SVG; - for standard output.",
            valueName: "file.svg"))
    var latencyChart: String?

    @Option(
        help: ArgumentHelp(
            "With --preview, write when each strategy's preview reached the main queue as an SVG; - for standard output.",
            valueName: "file.svg"))
    var firstPictureChart: String?

    /// The behaviour charts asked for, with their options.
    /// What a behaviour chart shows, named by its option.
    private enum BehaviourChart: String {
        case threads = "--threads-chart"
        case latency = "--latency-chart"
        case firstPicture = "--first-picture-chart"
    }

    private var behaviourCharts: [Output<BehaviourChart>] {
        Output.given([.threads: threadsChart, .latency: latencyChart, .firstPicture: firstPictureChart])
    }

    /// Every file the run writes, with the option that names it: results, charts, maps.
    private var outputs: [(option: String, path: String)] {
        measurement.outputs.map(\.named) + behaviourCharts.map(\.named) + mapOutputs
    }

    @Flag(
        help:
            "Add a row gcd/no-heartbeat: gcd without the main queue's heartbeat, to measure what the heartbeat costs."
    )
    var heartbeatOverhead = false

    var outputCount: Int {
        measurement.outputs.count + behaviourCharts.count + (ownershipMaps == nil ? 0 : entries.count)
    }

    var workerThreads: Int {
        let plan = RenderJob(view: options.view, work: options.work).plan()
        return entries.map { $0.strategy.threadsStarted(for: plan) }.max() ?? 0
    }

    mutating func validate() throws {
        try options.view.validateFitsInMemory(because: "mandel compare keeps whole pictures in memory")
        try options.work.validateSingleValues(command: "compare", size: options.view.size)
        try validateDistinctOutputs(outputs)
        try options.behaviour.validateSingleWait(command: "compare")
        try options.sharing.validate(for: options.view.colorScheme, command: "compare", lists: ["--merge"])
        try options.firstPicture.validate(colorScheme: options.view.colorScheme)
        try options.work.validateOrder(
            command: "compare", size: options.view.size,
            format: options.view.colorScheme.pixelFormat(supersampling: options.view.samplesPerAxis),
            allowsList: true)
        if latencyChart != nil && options.behaviour.heartbeatNanoseconds == nil {
            throw ValidationError("--latency-chart draws what the heartbeat measures; remove --heartbeat off")
        }
        if firstPictureChart != nil && options.firstPicture.preview == nil {
            throw ValidationError(
                "--first-picture-chart draws when the preview came; add --preview with a number of pixels")
        }
        if heartbeatOverhead && options.behaviour.heartbeatNanoseconds == nil {
            throw ValidationError("--heartbeat-overhead measures the heartbeat against none; remove --heartbeat off")
        }
    }

    /// The rows, in order.
    var entries: [MeasurementSession.Entry] {
        MeasurementSession.Entry.grid(
            measurement.strategyList, orders: options.work.orders, sharings: options.sharing.sharings())
            + (progressOverhead
                ? [
                    MeasurementSession.Entry(
                        strategy: StrategyCatalog.recommended, reportsProgress: true, sharing: options.sharing.sharing)
                ] : [])
            + (heartbeatOverhead
                ? [
                    MeasurementSession.Entry(
                        strategy: StrategyCatalog.recommended, heartbeat: false, sharing: options.sharing.sharing)
                ]
                : [])
    }

    private var mapOutputs: [(option: String, path: String)] {
        guard let ownershipMaps else { return [] }
        // An empty folder name stays empty (refused as every empty name is), never "/" by accident;
        // a row's name is made a file name ("gcd/centre" is written as gcd-centre.png).
        return entries.map {
            ("--ownership-maps", ownershipMaps.isEmpty ? "" : "\(ownershipMaps)/\($0.fileName).png")
        }
    }

    func run() async throws {
        let job = RenderJob(view: options.view, work: options.work)
        let resultCount = measurement.outputs.count
        try await CommandRun.perform(grace: measurement.grace, finishing: "the comparison") { watch in
            let chartCount = behaviourCharts.count
            let paths = outputs.map(\.path)
            try await CommandRun.publishing(paths, watch: watch) { files in
                try await measure(
                    job: job, results: Array(files.prefix(resultCount)),
                    charts: Array(files.dropFirst(resultCount).prefix(chartCount)),
                    maps: Array(files.dropFirst(resultCount + chartCount)), watch: watch)
            }
        }
    }

    @MainActor
    private func measure(
        job: RenderJob, results: [OutputFile], charts: [OutputFile], maps: [OutputFile], watch: SignalWatch
    ) async throws {
        let report = measurement.report
        try report.line(
            WorkloadText.describe(job, warmup: measurement.warmup, runs: measurement.runs)
                + WorkloadText.describe(options.behaviour) + WorkloadText.describe(options.sharing, for: job))
        let entries = self.entries
        let session = MeasurementSession(
            entries: entries, job: job, warmup: measurement.warmup, runs: measurement.runs,
            cancellation: watch.cancellation, behaviour: options.behaviour, previewEvery: options.firstPicture.preview)
        let comparison = try await session.measure { entry, canvas, report in
            guard let index = entries.firstIndex(where: { $0.name == entry.name }), index < maps.count else { return }
            let title =
                "\(entry.name), \(job.splitLabel), \(report.plannedWorkers) workers, wall \(NumberFormat.seconds(report.wallSeconds))"
            try PictureWriter.writePNG(OwnershipMap.draw(canvas: canvas, report: report, title: title), to: maps[index])
        }
        if options.behaviour.cancelAfter == nil {
            try ensureIdenticalPixels(comparison)
        }
        try report.line(ComparisonTable.render(comparison))
        if options.behaviour.tileWaitMilliseconds > 0 || options.behaviour.cancelAfter != nil {
            try report.line("\n" + ComparisonTable.behaviour(comparison))
        }
        if options.behaviour.cancelAfter != nil {
            try report.line("runs cancelled on purpose: pixels not compared, checksums 0")
        }
        if options.work.orders.contains(.centre) || options.firstPicture.preview != nil {
            try report.line("\n" + ComparisonTable.order(comparison))
        }
        if comparison.results.contains(where: { $0.behaviour.merge != nil }) {
            try report.line("\n" + ComparisonTable.sharing(comparison))
        }
        try report.line(WorkloadText.summary(of: comparison))

        let workload = WorkloadText.exportDescription(
            job, warmup: measurement.warmup, runs: measurement.runs)
        let export = ComparisonExport(
            compare: comparison, workload: workload, machine: MachineDescription())
        try measurement.write(export: export, chart: Charts.compare(comparison, job: job), to: results)
        for (file, output) in zip(charts, behaviourCharts) {
            let chart =
                switch output.kind {
                case .threads: Charts.threads(comparison, job: job, workload: WorkloadText.describe(options.behaviour))
                case .latency: Charts.latency(comparison, job: job, workload: WorkloadText.describe(options.behaviour))
                case .firstPicture: Charts.firstPicture(comparison, job: job, every: options.firstPicture.preview ?? 0)
                }
            try file.write(Array(chart.utf8))
        }
    }

}
