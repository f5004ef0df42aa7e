import ArgumentParser
import Comparison
import Foundation
import ImageFiles
import MandelOptions
import MandelbrotCore
import Platform
import RenderModel

/// `mandel sweep`: the comparison repeated over worker counts or tile sizes.
struct SweepCommand: AsyncParsableCommand, ProcessNeeds {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Measure how each strategy scales with workers, or what each task costs as tiles shrink.",
        discussion: """
            Give a list to exactly one of --workers (e.g. 1,2,4,8), --tile (e.g. 8,16,32,64,128,256,512, \
            square tiles), --tile-wait (e.g. 0,1,5,20 milliseconds) or, with --color histogram, \
            --merge-batch (e.g. 1,16,256,4096 values; add --merge queue,mutex,barrier,atomic,private for \
            a row per mechanism). Each point is measured as 'mandel compare' measures, and the points' \
            runs are interleaved too (every point's first run, then every point's second, …), so that a \
            machine that slows down midway slows every point alike. At tiny tiles the \
            per-task cost of a Thread, an Operation, a GCD block and a Task shows up plainly; with tiles \
            that wait, which pools grow and which starve; with tiny batches, what each way of sharing \
            the histogram costs.
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
            "Write each strategy's peak threads against the swept value as an SVG; - for standard output.",
            valueName: "file.svg"))
    var threadsChart: String?

    /// Every file the sweep writes, with its option.
    private var outputs: [(option: String, path: String)] {
        measurement.outputs.map(\.named) + (threadsChart.map { [("--threads-chart", $0)] } ?? [])
    }

    var outputCount: Int { outputs.count }

    /// The most threads any point starts: at its largest worker count.
    var workerThreads: Int {
        measurement.strategyList.map { ProcessStart.threadsNeeded(by: $0, for: widestPlan) }.max() ?? 0
    }

    var helperProcesses: Int {
        measurement.strategyList.map { ProcessStart.helperProcesses(of: $0, for: widestPlan) }.max() ?? 0
    }

    /// The plan at the sweep's largest worker count.
    private var widestPlan: WorkPlan {
        var job = RenderJob(view: view, work: work)
        job.workers = work.workers?.max() ?? job.workers
        return job.plan()
    }

    mutating func validate() throws {
        try view.validatePreset()
        try work.validateTiles(fitIn: view.size)
        let workerList = work.workers ?? []
        let tileList = work.tile ?? []
        // Every point keeps its picture to the end: the points' runs are interleaved.
        let points = max(workerList.count, tileList.count, behaviour.tileWait.count, sharing.mergeBatch?.count ?? 0)
        try view.validateFitsInMemory(
            because: "mandel sweep keeps each point's whole picture in memory", pictures: points)
        try sharing.validate(
            for: view.colorScheme, command: "sweep", lists: ["--merge", "--merge-batch"])
        try firstPicture.validate(colorScheme: view.colorScheme)
        try work.validateOrder(
            command: "sweep", size: view.size,
            format: view.colorScheme.pixelFormat(supersampling: view.samplesPerAxis),
            allowsList: false)
        let batchList = sharing.mergeBatch ?? []
        let lists = [
            workerList.count > 1, tileList.count > 1, behaviour.tileWait.count > 1, batchList.count > 1,
        ]
        .filter { $0 }.count
        if lists > 1 {
            throw ValidationError(
                "sweep one axis at a time: give a list to one of --workers, --tile, --tile-wait and --merge-batch, "
                    + "not several")
        }
        if lists == 0 {
            throw ValidationError(
                "give a list to --workers (e.g. 1,2,4,8), to --tile (e.g. 16,32,64,128), to --tile-wait "
                    + "(e.g. 0,1,5,20) or, with --color histogram, to --merge-batch (e.g. 1,16,256,4096)"
            )
        }
        let waits = behaviour.tileWait
        if let repeated = ValueParsing.firstRepeated(waits) {
            throw ValidationError(
                "--tile-wait lists \(NumberFormat.compact(repeated)) more than once; each point of a sweep is measured "
                    + "once"
            )
        }
        if let square = tileList.first(where: { $0.width != $0.height }), tileList.count > 1 {
            throw ValidationError("--tile lists square tiles for a sweep, such as 16,32,64 (got \(square))")
        }
        for (option, values) in [("--workers", workerList), ("--tile", tileList.map(\.width))] {
            if let repeated = ValueParsing.firstRepeated(values) {
                throw ValidationError(
                    "\(option) lists \(repeated) more than once; each point of a sweep is measured once")
            }
        }
        if tileList.count > 1 && work.split != .tiles {
            throw ValidationError("sweeping --tile needs --split tiles (got \(work.split.rawValue))")
        }
        try validateDistinctOutputs(outputs)
    }

    func run() async throws {
        let axis: SweepAxis =
            (work.workers?.count ?? 0) > 1
            ? .workers
            : (work.tile?.count ?? 0) > 1
                ? .tile : (sharing.mergeBatch?.count ?? 0) > 1 ? .mergeBatch : .tileWait
        let values: [Double] =
            switch axis {
            case .workers: work.workers!.map(Double.init)
            case .tile: work.tile!.map { Double($0.width) }
            case .tileWait: behaviour.tileWait
            case .mergeBatch: sharing.mergeBatch!.map(Double.init)
            }
        let template = RenderJob(view: view, work: work)
        try await CommandRun.perform(grace: measurement.grace, finishing: "the sweep") { watch in
            try await CommandRun.publishing(outputs.map(\.path), watch: watch) { files in
                try await sweep(template: template, axis: axis, values: values, files: files, watch: watch)
            }
        }
    }

    @MainActor
    private func sweep(
        template: RenderJob, axis: SweepAxis, values: [Double], files: [OutputFile], watch: SignalWatch
    ) async throws {
        let report = measurement.report
        try report.line(
            "sweep over \(axis.rawValue) \(values.map(NumberFormat.compact).joined(separator: ",")): "
                + WorkloadText.describe(
                    template, warmup: measurement.warmup, runs: measurement.runs, sweeping: axis)
                + (axis == .tileWait ? "" : WorkloadText.describe(behaviour))
                + WorkloadText.describe(sharing, for: template, sweeping: axis))
        var sessions: [MeasurementSession] = []
        for value in values {
            var job = template
            var pointBehaviour = behaviour
            var sharings = sharing.sharings()
            switch axis {
            case .workers: job.workers = Int(value)
            case .tile: job.tileSize = TileSize(width: Int(value), height: Int(value))
            case .tileWait: pointBehaviour = behaviour.waiting(value)
            case .mergeBatch: sharings = sharing.sharings(batch: Int(value))
            }
            sessions.append(
                MeasurementSession(
                    entries: MeasurementSession.Entry.grid(
                        measurement.strategyList, orders: work.orders, sharings: sharings), job: job,
                    warmup: measurement.warmup, runs: measurement.runs, cancellation: watch.cancellation,
                    behaviour: pointBehaviour, previewEvery: firstPicture.preview))
        }
        // Round by round across the points, so that the machine's drift hits every point alike.
        let comparisons = try await MeasurementSession.measure(sessions)
        if behaviour.cancelAfter == nil { try comparisons.forEach(ensureIdenticalPixels) }
        let points = zip(values, comparisons).map { SweepPoint(value: $0, comparison: $1) }
        try report.line(SweepTable.render(points, axis: axis))
        if axis == .workers {
            let fits = ScalingModel.fits(points.map { (Int($0.value), $0.comparison) })
            if !fits.isEmpty { try report.line("\n" + ScalingModel.table(fits)) }
        }

        let workload = WorkloadText.exportDescription(
            template, warmup: measurement.warmup, runs: measurement.runs)
        let export = ComparisonExport(
            sweep: points.map {
                (
                    workers: axis == .workers ? Int($0.value) : nil,
                    tile: axis == .tile ? "\(Int($0.value))x\(Int($0.value))" : nil,
                    tileWait: axis == .tileWait ? $0.value / 1000 : nil,
                    mergeBatch: axis == .mergeBatch ? Int($0.value) : nil, comparison: $0.comparison
                )
            },
            workload: workload, machine: MachineDescription())
        try measurement.write(export: export, chart: Charts.sweep(points, axis: axis, job: template), to: files)
        if threadsChart != nil, let file = files.last {
            try file.write(Array(Charts.sweepThreads(points, axis: axis, job: template).utf8))
        }
    }
}

/// The matrix `mandel sweep` prints: strategies down, points across.
enum SweepTable {
    static func render(_ points: [SweepPoint], axis: SweepAxis) -> String {
        let names = points.first?.comparison.results.map(\.strategy) ?? []
        let baseline = points.first?.comparison.baselineName ?? "the baseline"
        var text = matrix(points, axis: axis, names: names) { result, comparison in
            let marker = comparison.hasVerdicts && comparison.fastest.strategy == result.strategy ? "*" : " "
            let speedup = comparison.speedup(of: result).map { String(format: " (%.2fx)", $0) } ?? ""
            return "\(marker)\(NumberFormat.milliseconds(result.wall.median))\(speedup)"
        }
        text += "\nmedian wall time in ms (speedup against \(baseline) at the same point); * fastest at that point"
        if axis == .mergeBatch {
            // The cost of sharing the histogram: merging, and workers handing over.
            text +=
                "\n\n"
                + matrix(points, axis: axis, names: names) { result, _ in
                    result.behaviour.merge.map {
                        "\(NumberFormat.milliseconds($0.mergeSeconds)) + \(NumberFormat.milliseconds($0.waitSeconds))"
                    }
                }
                + "\nper run, in ms: merging + workers handing over (waiting for the lock, enqueueing)"
        }
        if points.first?.comparison.results.first?.behaviour.firstPictureSeconds != nil {
            text +=
                "\n\n"
                + matrix(points, axis: axis, names: names) { result, _ in
                    result.behaviour.firstPictureSeconds.map(NumberFormat.milliseconds)
                }
                + "\nms until the preview was delivered on the main queue (median)"
        }
        return text
    }

    /// Strategies down, points across: each cell what `cell` says of the row's result at that point.
    private static func matrix(
        _ points: [SweepPoint], axis: SweepAxis, names: [String],
        cell: (StrategyResult, StrategyComparison) -> String?
    ) -> String {
        var rows = [["strategy"] + points.map { $0.label(on: axis) }]
        for name in names {
            rows.append(
                [name]
                    + points.map { point in
                        point.comparison.results.first { $0.strategy == name }.flatMap { cell($0, point.comparison) }
                            ?? ""
                    })
        }
        return ComparisonTable.align(rows, rightAligned: Set(1..<rows[0].count))
    }
}
