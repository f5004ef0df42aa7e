import ArgumentParser
import Comparison
import Foundation
import ImageFiles
import MandelbrotCore
import WorkVisuals

/// `mandel compare`: every strategy on the same workload, side by side.
struct CompareCommand: AsyncParsableCommand {
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

    @OptionGroup(title: "View")
    var view: ViewOptions

    @OptionGroup(title: "Work split")
    var work: WorkOptions

    @OptionGroup(title: "Measurement")
    var measurement: MeasurementOptions

    @Option(help: ArgumentHelp("Write each strategy's ownership map (from its last run) into this existing folder as <strategy>.png.", valueName: "folder"))
    var ownershipMaps: String?

    @Flag(help: "Add a row gcd+progress: gcd with the progress bar's dispatch source attached (not drawn), to measure its cost.")
    var progressOverhead = false

    func validate() throws {
        try view.validateFitsInMemory(because: "mandel compare keeps whole pictures in memory")
    }

    func run() async throws {
        let size = view.imageSize
        let job = RenderJob(
            size: size, region: view.region, iterations: view.iterationLimit, colorScheme: view.colorScheme, palette: view.colorPalette,
            split: work.split, tileSize: try work.tileSize(for: size), workers: work.workerCount, kernel: work.kernel, julia: view.juliaConstant, supersampling: view.samplesPerAxis)
        try await CompareSession(
            job: job, view: view, measurement: measurement, ownershipMaps: ownershipMaps, progressOverhead: progressOverhead
        ).run()
    }
}

/// One `mandel compare`, on the main actor.
@MainActor
struct CompareSession {
    let job: RenderJob
    let view: ViewOptions
    let measurement: MeasurementOptions
    let ownershipMaps: String?
    let progressOverhead: Bool

    func run() async throws {
        let outputs = try opened { () throws(ImageFileError) in try measurement.openOutputs() }
        var entries = try measurement.strategyNames().map { MeasurementSession.Entry(strategy: $0.strategy, reportsProgress: false) }
        if progressOverhead {
            entries.append(MeasurementSession.Entry(strategy: StrategyName.gcd.strategy, reportsProgress: true))
        }
        let maps = try ownershipMaps.map { folder in
            try opened { () throws(ImageFileError) in
                try entries.map { entry throws(ImageFileError) in try OutputFile(path: "\(folder)/\(entry.name).png") }
            }
        }
        let cancellation = CancellationFlag()
        let interrupts = InterruptWatch(cancellation: cancellation, grace: measurement.grace)
        defer { interrupts.stop() }
        print(WorkloadText.describe(job, warmup: measurement.warmup, runs: measurement.runs))
        let session = MeasurementSession(
            entries: entries, job: job, warmup: measurement.warmup, runs: measurement.runs, cancellation: cancellation)
        let comparison: StrategyComparison
        do {
            comparison = try await session.measure { entry, canvas, report in
                guard let maps, let index = entries.firstIndex(where: { $0.name == entry.name }) else { return }
                let split = job.split == .tiles ? "tiles \(job.tileSize)" : job.split.rawValue
                let title = "\(entry.name), \(split), \(report.plannedWorkers) workers, wall \(String(format: "%.3f", report.wallSeconds)) s"
                try opened { () throws(ImageFileError) in
                    try PictureWriter.writePNG(OwnershipMap.draw(canvas: canvas, report: report, title: title), to: maps[index])
                }
            }
        } catch is MeasurementSession.Interrupted {
            printError(interrupts.stopMessage)
            throw ExitCode(interrupts.exitStatus)
        }
        interrupts.renderFinished()
        try ensureIdenticalPixels(comparison)
        print(ComparisonTable.render(comparison))
        print(WorkloadText.summary(of: comparison))

        let workload = WorkloadText.exportDescription(job, view: view, warmup: measurement.warmup, runs: measurement.runs)
        let export = ComparisonExport(compare: comparison, workload: workload, machine: MachineDescription(processors: ProcessorCount.available))
        try opened { () throws(ImageFileError) in
            try outputs.json?.write(Array(export.json))
            try outputs.csv?.write(Array(export.csv.utf8))
            try outputs.chart?.write(Array(Charts.compare(comparison, job: job).utf8))
        }
    }
}

/// Runs `body`, turning a file error into its message and exit code.
func opened<Result>(_ body: () throws(ImageFileError) -> Result) throws -> Result {
    do {
        return try body()
    } catch {
        printError(error.description)
        throw ExitStatus.code(for: error)
    }
}

/// Fails with exit code 70 if any strategy's pixels differ from the baseline's.
func ensureIdenticalPixels(_ comparison: StrategyComparison) throws {
    let mismatched = comparison.mismatchedStrategies
    guard mismatched.isEmpty else {
        printError("strategies produced different pixels: \(mismatched.joined(separator: ", ")) differ from \(comparison.results[0].strategy) (a bug; please report it)")
        throw ExitStatus.internalError
    }
}
