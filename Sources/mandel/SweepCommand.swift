import ArgumentParser
import Comparison
import Foundation
import ImageFiles
import MandelbrotCore

/// The axis a sweep varies.
enum SweepAxis: String {
    case workers
    case tile
}

/// One value of the swept axis and what was measured there.
struct SweepPoint {
    let value: Int
    let comparison: StrategyComparison
}

/// `mandel sweep`: the comparison repeated over worker counts or tile sizes.
struct SweepCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Measure how each strategy scales with workers, or what each task costs as tiles shrink.",
        discussion: """
            Give a list to exactly one of --workers (e.g. 1,2,4,8) or --tile (e.g. 8,16,32,64,128,256,512, \
            square tiles). Each point is measured as 'mandel compare' measures. At tiny tiles the \
            per-task cost of a Thread, an Operation, a GCD block and a Task shows up plainly.
            """
    )

    @OptionGroup(title: "View")
    var view: ViewOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Worker counts to sweep, comma-separated, each 1…1024 (default: the processors this process may use).", valueName: "list"))
    var workers: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Square tile sides to sweep, comma-separated (default: 64); sweeping tiles uses the tiles split.", valueName: "list"))
    var tile: String?

    @Option(help: "Work split when sweeping workers: bands, rows or tiles.")
    var split: WorkSplit = .tiles

    @Option(help: "Kernel: simd or scalar.")
    var kernel: IterationKernel = .simd

    @OptionGroup(title: "Measurement")
    var measurement: MeasurementOptions

    mutating func validate() throws {
        try view.validateFitsInMemory(because: "mandel sweep keeps whole pictures in memory")
        let workerList = try workers.map { try ArgumentParsing.numberList($0, option: "--workers", maximum: Limits.maximumWorkers) } ?? []
        let size = view.imageSize
        let tileList = try tile.map { try ArgumentParsing.numberList($0, option: "--tile", maximum: Limits.maximumSide) } ?? []
        if let tooLarge = tileList.first(where: { $0 > min(size.width, size.height) }) {
            throw ValidationError("--tile \(tooLarge) is larger than the \(size) image; use tiles no larger than the image")
        }
        switch (workerList.count > 1, tileList.count > 1) {
        case (true, true): throw ValidationError("sweep one axis at a time: give a list to --workers or to --tile, not both")
        case (false, false): throw ValidationError("give a list to --workers (e.g. 1,2,4,8) or to --tile (e.g. 16,32,64,128)")
        default: break
        }
        if tileList.count > 1 && split != .tiles {
            throw ValidationError("sweeping --tile needs --split tiles (got \(split.rawValue))")
        }
    }

    func run() async throws {
        let workerList = try workers.map { try ArgumentParsing.numberList($0, option: "--workers", maximum: Limits.maximumWorkers) }
            ?? [ProcessorCount.available]
        let tileList = try tile.map { try ArgumentParsing.numberList($0, option: "--tile", maximum: Limits.maximumSide) } ?? [64]
        let axis: SweepAxis = workerList.count > 1 ? .workers : .tile
        let size = view.imageSize
        let template = RenderJob(
            size: size, region: view.region, iterations: view.iterationLimit, colorScheme: view.colorScheme, palette: view.colorPalette,
            split: axis == .tile ? .tiles : split,
            tileSize: TileSize(width: min(tileList[0], size.width), height: min(tileList[0], size.height)),
            workers: workerList[0], kernel: kernel, julia: view.juliaConstant, supersampling: view.samplesPerAxis)
        try await SweepSession(
            template: template, axis: axis, values: axis == .workers ? workerList : tileList, view: view, measurement: measurement
        ).run()
    }
}

/// One `mandel sweep`, on the main actor.
@MainActor
struct SweepSession {
    let template: RenderJob
    let axis: SweepAxis
    let values: [Int]
    let view: ViewOptions
    let measurement: MeasurementOptions

    func run() async throws {
        let outputs = try opened { () throws(ImageFileError) in try measurement.openOutputs() }
        let names = try measurement.strategyNames()
        let cancellation = CancellationFlag()
        let interrupts = InterruptWatch(cancellation: cancellation, grace: measurement.grace)
        defer { interrupts.stop() }
        print("sweep over \(axis.rawValue) \(values.map(String.init).joined(separator: ",")): "
              + WorkloadText.describe(template, warmup: measurement.warmup, runs: measurement.runs, sweeping: axis.rawValue))
        var points: [SweepPoint] = []
        for value in values {
            var job = template
            switch axis {
            case .workers: job.workers = value
            case .tile: job.tileSize = TileSize(width: value, height: value)
            }
            let session = MeasurementSession(
                entries: names.map { MeasurementSession.Entry(strategy: $0.strategy, reportsProgress: false) }, job: job,
                warmup: measurement.warmup, runs: measurement.runs, cancellation: cancellation)
            do {
                let comparison = try await session.measure()
                try ensureIdenticalPixels(comparison)
                points.append(SweepPoint(value: value, comparison: comparison))
            } catch is MeasurementSession.Interrupted {
                printError(interrupts.stopMessage)
                throw ExitCode(interrupts.exitStatus)
            }
        }
        interrupts.renderFinished()
        print(SweepTable.render(points, axis: axis))

        let workload = WorkloadText.exportDescription(template, view: view, warmup: measurement.warmup, runs: measurement.runs)
        let export = ComparisonExport(
            sweep: points.map { (workers: axis == .workers ? $0.value : nil, tile: axis == .tile ? "\($0.value)x\($0.value)" : nil, comparison: $0.comparison) },
            workload: workload, machine: MachineDescription(processors: ProcessorCount.available))
        try opened { () throws(ImageFileError) in
            try outputs.json?.write(Array(export.json))
            try outputs.csv?.write(Array(export.csv.utf8))
            try outputs.chart?.write(Array(Charts.sweep(points, axis: axis, job: template).utf8))
        }
    }
}

/// The matrix `mandel sweep` prints: strategies down, points across.
enum SweepTable {
    static func render(_ points: [SweepPoint], axis: SweepAxis) -> String {
        let names = points.first?.comparison.results.map(\.strategy) ?? []
        var rows = [["strategy"] + points.map { axis == .workers ? "\($0.value) workers" : "tile \($0.value)" }]
        for name in names {
            rows.append([name] + points.map { point in
                guard let result = point.comparison.results.first(where: { $0.strategy == name }) else { return "" }
                let marker = point.comparison.fastest.strategy == name ? "*" : " "
                let speedup = point.comparison.speedup(of: result).map { String(format: " (%.2fx)", $0) } ?? ""
                return "\(marker)\(ComparisonText.milliseconds(result.wall.median))\(speedup)"
            })
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        let lines = rows.map { row in
            row.indices.map { column in
                column == 0
                    ? row[column] + String(repeating: " ", count: widths[column] - row[column].count)
                    : String(repeating: " ", count: widths[column] - row[column].count) + row[column]
            }.joined(separator: "  ")
        }
        return lines.joined(separator: "\n") + "\nmedian wall time in ms (speedup against serial at the same point); * fastest at that point"
    }
}
