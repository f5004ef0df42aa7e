import ArgumentParser
import Comparison
import ImageFiles
import MandelOptions
import MandelbrotCore
import Platform
import RenderModel
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

    // Declared in each command, not nested in one shared group: swift-argument-parser's debug
    // build checks every group each time it parses, once more for each level of nesting,
    // and a nested group cost 0.1 s of processor time per run of the debug binary (which the
    // tests start about 750 times).
    @OptionGroup(title: "View")
    var view: ViewOptions

    @OptionGroup(title: "Work split")
    var work: WorkOptions

    @OptionGroup(title: "Behaviour")
    var behaviour: BehaviourOptions

    @OptionGroup(title: "Sharing the histogram")
    var sharing: SharingOptions

    @OptionGroup(title: "First picture")
    var firstPicture: PreviewOptions

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
            ArgumentHelp(
                "Add a row gcd+progress: gcd with the progress meter's tile counter attached (not drawn), to measure "
                    + "its "
                    + "cost.")
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
            "With --preview, write when each strategy's preview reached the main queue as an SVG; - for standard "
                + "output.",
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
        let plan = RenderJob(view: view, work: work).plan()
        return entries.map { ProcessStart.threadsNeeded(by: $0.strategy, for: plan) }.max() ?? 0
    }

    var helperProcesses: Int {
        let plan = RenderJob(view: view, work: work).plan()
        return entries.map { ProcessStart.helperProcesses(of: $0.strategy, for: plan) }.max() ?? 0
    }

    mutating func validate() throws {
        try view.validatePreset()
        try view.validateFitsInMemory(because: "mandel compare keeps whole pictures in memory")
        try work.validateSingleValues(command: "compare", size: view.size)
        try validateDistinctOutputs(outputs)
        try behaviour.validateSingleWait(command: "compare")
        try sharing.validate(for: view.colorScheme, command: "compare", lists: ["--merge"])
        try firstPicture.validate(colorScheme: view.colorScheme)
        try work.validateOrder(
            command: "compare", size: view.size,
            format: view.colorScheme.pixelFormat(supersampling: view.samplesPerAxis),
            allowsList: true)
        if latencyChart != nil && behaviour.heartbeatNanoseconds == nil {
            throw ValidationError("--latency-chart draws what the heartbeat measures; remove --heartbeat off")
        }
        if firstPictureChart != nil && firstPicture.preview == nil {
            throw ValidationError(
                "--first-picture-chart draws when the preview came; add --preview with a number of pixels")
        }
        if heartbeatOverhead && behaviour.heartbeatNanoseconds == nil {
            throw ValidationError("--heartbeat-overhead measures the heartbeat against none; remove --heartbeat off")
        }
    }

    /// The rows, in order.
    var entries: [MeasurementSession.Entry] {
        MeasurementSession.Entry.grid(
            measurement.strategyList, orders: work.orders, sharings: sharing.sharings())
            + (progressOverhead
                ? [
                    MeasurementSession.Entry(
                        strategy: StrategyCatalog.recommended, reportsProgress: true, sharing: sharing.sharing)
                ] : [])
            + (heartbeatOverhead
                ? [
                    MeasurementSession.Entry(
                        strategy: StrategyCatalog.recommended, heartbeat: false, sharing: sharing.sharing)
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
        let job = RenderJob(view: view, work: work)
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
                + WorkloadText.describe(behaviour) + WorkloadText.describe(sharing, for: job))
        let entries = self.entries
        let session = MeasurementSession(
            entries: entries, job: job, warmup: measurement.warmup, runs: measurement.runs,
            cancellation: watch.cancellation, behaviour: behaviour, previewEvery: firstPicture.preview)
        let comparison = try await session.measure { entry, canvas, report in
            guard let index = entries.firstIndex(where: { $0.name == entry.name }), index < maps.count else { return }
            let title =
                "\(entry.name), \(job.splitLabel), \(report.plannedWorkers) workers, wall "
                + "\(NumberFormat.seconds(report.wallSeconds))"
            try PictureWriter.writePNG(OwnershipMap.draw(canvas: canvas, report: report, title: title), to: maps[index])
        }
        if behaviour.cancelAfter == nil {
            try ensureIdenticalPixels(comparison)
        }
        try report.line(ComparisonTable.render(comparison))
        if behaviour.tileWaitMilliseconds > 0 || behaviour.cancelAfter != nil {
            try report.line("\n" + ComparisonTable.behaviour(comparison))
        }
        if behaviour.cancelAfter != nil {
            try report.line("runs cancelled on purpose: pixels not compared, checksums 0")
        }
        if work.orders.contains(.centre) || firstPicture.preview != nil {
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
                case .threads: Charts.threads(comparison, job: job, workload: WorkloadText.describe(behaviour))
                case .latency: Charts.latency(comparison, job: job, workload: WorkloadText.describe(behaviour))
                case .firstPicture: Charts.firstPicture(comparison, job: job, every: firstPicture.preview ?? 0)
                }
            try file.write(Array(chart.utf8))
        }
    }

}
