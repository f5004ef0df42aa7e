import ArgumentParser
import Dispatch
import Foundation
import ImageFiles
import MandelbrotCore

/// `mandel render`: one render with one strategy, written to a PNG, with its timing.
struct RenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render one picture with one strategy and print its timing.",
        discussion: """
            The render runs on the chosen strategy's threads; its completion comes back on \
            the main queue, which writes the PNG and prints one line (or one JSON object with \
            --json). Wall time runs from the strategy's start to that completion; the PNG \
            encoding is timed separately. A picture over 8 MiB of pixels renders in bands \
            (--band-height): each band is split among the workers like a whole picture, and \
            the writer's queue encodes it while the next band renders, so memory stays \
            bounded whatever the height. Ctrl-C cancels the render and exits with 130.
            """
    )

    @Option(
        name: .customLong("strategy"),
        help: ArgumentHelp("Threading strategy: \(StrategyName.allowedList) (see 'mandel strategies').", valueName: "name"))
    var strategyText = StrategyName.gcd.rawValue

    /// The strategy; valid after `validate()`.
    var strategy: StrategyName { StrategyName(rawValue: strategyText)! }

    @OptionGroup(title: "View")
    var view: ViewOptions

    @OptionGroup(title: "Work split")
    var work: WorkOptions

    @Option(name: .shortAndLong, help: "Output file; written atomically (a temporary file, then a rename).")
    var output = "mandel.png"

    @Option(help: "Output format: png, or pbm (binary bitmap, black and white only).")
    var format: ImageFormat = .png

    @Option(help: "How hard the PNG encoder works: fast (several times faster, larger files), balanced, or small (smallest, slowest) (default: balanced).")
    var compression: PNGCompression?

    @Flag(help: "Print one JSON object instead of the human line.")
    var json = false

    @OptionGroup(title: "Seeing the work")
    var visuals: VisualOptions

    @Option(parsing: .unconditional, help: "Seconds the render may still take after SIGTERM before it is cancelled, 0…3600.")
    var grace = 5.0

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Render in bands of this many rows, each written while the next renders, in memory that does not grow with the height (default: the whole picture at once up to \(Limits.wholePictureBytes >> 20) MiB of pixels; above that at least \(Limits.minimumBands) bands, of at most \(Limits.bandBytes >> 20) MiB each).",
            valueName: "rows"))
    var bandHeight: Int?

    mutating func validate() throws {
        guard StrategyName(rawValue: strategyText) != nil else {
            throw ValidationError("--strategy must be one of \(StrategyName.allowedList) (got '\(strategyText)')")
        }
        try validateGrace(grace)
        if format == .pbm && view.samplesPerAxis > 1 {
            throw ValidationError("--format pbm has one bit per pixel; --supersample blends edges into gray, so use --format png")
        }
        if format == .pbm && view.colorScheme != .bw {
            throw ValidationError("--format pbm is black and white; add --color bw (or use --preset benchmarks-game)")
        }
        if format == .pbm, compression != nil {
            throw ValidationError("--compression sets how hard the PNG encoder works; a PBM is not compressed, so remove it or use --format png")
        }
        if let bandHeight, bandHeight < 1 {
            throw ValidationError("--band-height must be a number of rows, 1 or more (got \(bandHeight))")
        }
        if visuals.needsWholePicture {
            if bandHeight != nil {
                throw ValidationError("--ownership-map and --cost-map need the whole picture in memory; remove --band-height or the maps")
            }
            try view.validateFitsInMemory(because: "--ownership-map and --cost-map need the whole picture in memory (without them, render streams it in bands)")
        }
    }

    /// Rows per band, or nil for the whole picture at once: `--band-height`; the whole
    /// picture when it is small (nothing to overlap) or a map needs it; otherwise at
    /// least `Limits.minimumBands` bands of at most `Limits.bandBytes`, in whole rows of tiles.
    func bandRows(for size: ImageSize, channels: Int) -> Int? {
        if let bandHeight { return min(bandHeight, size.height) }
        let rowBytes = size.width * channels
        guard !visuals.needsWholePicture, rowBytes * size.height > Limits.wholePictureBytes else { return nil }
        // Enough bands for the encoder to overlap the render, none larger than bandBytes.
        let bandsNeeded = (size.height + Limits.minimumBands - 1) / Limits.minimumBands
        var rows = max(1, min(Limits.bandBytes / rowBytes, bandsNeeded))
        // Whole rows of tiles, so that no band ends in a strip of short tiles.
        if work.split == .tiles, let tile = try? work.tileSize(for: size), rows >= tile.height {
            rows -= rows % tile.height
        }
        return rows
    }

    func run() async throws {
        let size = view.imageSize
        let job = RenderJob(
            size: size, region: view.region, iterations: view.iterationLimit,
            colorScheme: view.colorScheme, palette: view.colorPalette, split: work.split, tileSize: try work.tileSize(for: size),
            workers: work.workerCount, kernel: work.kernel, julia: view.juliaConstant, supersampling: view.samplesPerAxis)
        try await RenderSession(
            job: job, viewport: view.viewport, strategy: strategy.strategy, output: output, format: format,
            compression: compression ?? .balanced, json: json,
            visuals: visuals, grace: grace, bandRows: bandRows(for: size, channels: job.colorScheme.channels)
        ).run()
    }
}

/// One `mandel render` from start to written file, on the main actor.
@MainActor
struct RenderSession {
    let job: RenderJob
    let viewport: Viewport
    let strategy: any RenderStrategy
    let output: String
    let format: ImageFormat
    let compression: PNGCompression
    let json: Bool
    let visuals: VisualOptions
    let grace: Double
    /// Rows per band for a banded render; nil renders the whole picture at once.
    let bandRows: Int?

    func run() async throws {
        if let bandRows {
            try await runBanded(bandRows: bandRows)
            return
        }
        let extras = try opened { () throws(ImageFileError) in try visuals.openOutputs() }
        let canvas = PixelBuffer(size: job.size, channels: job.colorScheme.channels)
        let counts = visuals.costMap != nil ? IterationCounts(size: job.size) : nil
        let cancellation = CancellationFlag()
        let interrupts = InterruptWatch(cancellation: cancellation, grace: grace)
        defer { interrupts.stop() }
        interrupts.removeOnEmergencyExit(extras.temporaryPaths)
        let tiles = WorkPlan(size: job.size, split: job.split, workers: job.workers, tileSize: job.tileSize).tiles.count
        let meter = ProgressMeter(totalTiles: tiles * job.passes, draws: visuals.progress ?? ProgressMeter.standardErrorIsTerminal)
        let work = RenderWork(
            job: job, canvas: canvas, counts: counts, cancellation: cancellation, onTileFinished: { meter.tileFinished() })

        let report = await StrategyRunner.run(strategy, work: work)
        // The strategy's completion resumed us: from here on, the main queue owns the result.
        dispatchPrecondition(condition: .onQueue(.main))
        meter.finish()
        interrupts.renderFinished()
        guard !report.wasCancelled else {
            printError(interrupts.stopMessage)
            throw ExitCode(interrupts.exitStatus)
        }

        let writeSeconds: Double
        do {
            writeSeconds = try PictureWriter.write(
                canvas, as: format, compression: compression, to: output, texts: textChunks(), isInterrupted: { interrupts.wasInterrupted })
        } catch let error as ImageFileError {
            printError(error.description)
            throw ExitStatus.code(for: error)
        } catch is PictureWriter.Interrupted {
            printError(interrupts.stopMessage)
            throw ExitCode(interrupts.exitStatus)
        }
        try opened { () throws(ImageFileError) in
            try extras.write(canvas: canvas, counts: counts, work: work, report: report, title: visualTitle(report))
        }
        announce(RenderSummary(
            report: report, job: job, viewport: viewport, format: format.rawValue, writeSeconds: writeSeconds, output: output,
            checksum: canvas.checksum, bandRows: nil), interrupts: interrupts)
    }

    /// Prints the summary, and the note that SIGTERM's grace was enough to finish.
    private func announce(_ summary: RenderSummary, interrupts: InterruptWatch) {
        print(json ? summary.json : summary.line)
        if interrupts.wasAskedToTerminate {
            printError("terminated: finished the render within the grace period and wrote \(output)")
        }
    }

    /// Renders band by band: the strategy renders band k + 1 while the writer's
    /// queue encodes band k, so memory stays at two bands whatever the height.
    private func runBanded(bandRows: Int) async throws {
        let extras = try opened { () throws(ImageFileError) in try visuals.openOutputs() }
        let writer = BandWriter(stream: try opened { () throws(ImageFileError) in
            try ImageStream(
                path: output, format: format, compression: compression, size: job.size, channels: job.colorScheme.channels,
                texts: textChunks())
        })
        let cancellation = CancellationFlag()
        let interrupts = InterruptWatch(cancellation: cancellation, grace: grace)
        defer { interrupts.stop() }
        interrupts.removeOnEmergencyExit(extras.temporaryPaths + [writer.temporaryPath])
        let tiles = BandedRender.tilesPerPass(of: job, bandHeight: bandRows)
        let meter = ProgressMeter(totalTiles: tiles * job.passes, draws: visuals.progress ?? ProgressMeter.standardErrorIsTerminal)
        let render = BandedRender(job: job, bandHeight: bandRows, cancellation: cancellation, onTileFinished: { meter.tileFinished() })

        let report: RenderReport
        do {
            report = try await render.run(strategy) { band, _ in try await writer.write(band) }
            dispatchPrecondition(condition: .onQueue(.main))
            meter.finish()
            interrupts.renderFinished()
            // A stop that came while the last band was being written still stops.
            if interrupts.wasInterrupted { throw BandedRender.Cancelled() }
            try writer.finish()
        } catch is BandedRender.Cancelled {
            meter.finish()
            writer.discard()
            printError(interrupts.stopMessage)
            throw ExitCode(interrupts.exitStatus)
        } catch let error as ImageFileError {
            // The render has already stopped: it rethrows only once the band in flight is done.
            meter.finish()
            writer.discard()
            printError(error.description)
            throw ExitStatus.code(for: error)
        }
        try opened { () throws(ImageFileError) in try extras.writeTrace(report: report, title: visualTitle(report)) }
        announce(RenderSummary(
            report: report, job: job, viewport: viewport, format: format.rawValue, writeSeconds: writer.writeSeconds,
            output: output, checksum: writer.checksum, bandRows: bandRows), interrupts: interrupts)
    }

    /// The first line of an ownership map's legend and a trace's name.
    private func visualTitle(_ report: RenderReport) -> String {
        let split = job.split == .tiles ? "tiles \(job.tileSize)" : job.split.rawValue
        return "\(strategy.name), \(split), \(report.plannedWorkers) workers, wall \(String(format: "%.3f", report.wallSeconds)) s"
    }

    /// The text chunks that say how the picture was made.
    private func textChunks() -> [PNGWriter.TextChunk] {
        let region: [PNGWriter.TextChunk] = switch job.region {
        case .benchmarksGame: [.init(key: "mandel.preset", text: Preset.benchmarksGame.rawValue)]
        case .view(let viewport): [
            .init(key: "mandel.center", text: "\(viewport.centerReal),\(viewport.centerImaginary)"),
            .init(key: "mandel.zoom", text: "\(viewport.zoom)"),
        ] + (job.julia.map { [.init(key: "mandel.julia", text: "\($0.real),\($0.imaginary)")] } ?? [])
        }
        return [.init(key: "Software", text: "mandel \(Mandel.version)")] + region + [
            .init(key: "mandel.iterations", text: "\(job.iterations)"),
            .init(key: "mandel.color", text: job.colorScheme.rawValue),
            .init(key: "mandel.strategy", text: strategy.name),
            .init(key: "mandel.split", text: job.split.rawValue),
            .init(key: "mandel.workers", text: "\(job.workers)"),
        ]
    }
}
