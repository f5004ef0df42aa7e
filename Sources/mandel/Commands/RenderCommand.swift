import ArgumentParser
import ImageFiles
import MandelbrotCore
import StrategyCatalog

/// `mandel render`: one render with one strategy, written to a picture file, with its timing.
struct RenderCommand: AsyncParsableCommand, ProcessNeeds {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render one picture with one strategy and print its timing.",
        discussion: """
            The render runs on the chosen strategy's threads; its completion comes back on \
            the main queue, and the picture is written by the writer's queue (-o - writes it \
            to standard output, and the report goes to standard error). Wall time runs from \
            the strategy's start to that completion; the encoding is timed separately. A \
            picture over 8 MiB of pixels renders in bands (--band-height): the workers move \
            from band to band without waiting, and each band is encoded as soon as its last \
            tile is done, so memory stays bounded whatever the height. Every output appears \
            when all are complete, or none does. Ctrl-C cancels and exits with 130.
            """
    )

    @Option(
        name: .customLong("strategy"),
        help: ArgumentHelp("Threading strategy (see 'mandel strategies').", valueName: "name"))
    var strategy = StrategyChoice(StrategyCatalog.recommended)

    @OptionGroup(title: "View")
    var view: ViewOptions

    @OptionGroup(title: "Work split")
    var work: WorkOptions

    @Option(name: .shortAndLong, help: "Output file, written whole or not at all; - for standard output.")
    var output = "mandel.png"

    @Option(help: "Output format: png, or pbm (binary bitmap, black and white only).")
    var format: ImageFormat = .png

    @Option(
        help: ArgumentHelp(
            "How hard the PNG encoder works: fast (several times faster, larger files), balanced, or small "
                + "(smallest, slowest) (default: balanced).")
    )
    var compression: PNGCompression?

    @Flag(help: "Print one JSON object instead of the human line.")
    var json = false

    @OptionGroup(title: "Seeing the work")
    var visuals: VisualOptions

    @OptionGroup(title: "Behaviour")
    var behaviour: BehaviourOptions

    @OptionGroup(title: "Sharing the histogram")
    var sharing: SharingOptions

    @OptionGroup(title: "First picture")
    var firstPicture: PreviewOptions

    @Option(
        help: ArgumentHelp(
            "Write the preview as a PNG, put in place as soon as it is ready (it stays if the full render then "
                + "fails); needs --preview.",
            valueName: "file.png"))
    var previewOutput: String?

    @Option(
        parsing: .unconditional,
        help: "Seconds the render may still take after SIGTERM before it is cancelled, 0…3600.",
        transform: { try ValueParsing.real($0) })
    var grace = 5.0

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Render in bands of this many rows, each written while the next render, in memory that does not "
                + "grow with the height (default: the whole picture at once up to \(Limits.wholePictureBytes >> 20) "
                + "MiB of pixels; above that at least \(Limits.minimumBands) bands, of at most "
                + "\(Limits.bandBytes >> 20) MiB each).",
            valueName: "rows"),
        transform: { try ValueParsing.integer($0) })
    var bandHeight: Int?

    var outputCount: Int { outputs.count }

    var workerThreads: Int {
        let job = RenderJob(view: view, work: work)
        return strategy.strategy.threadsStarted(for: job.plan(bandHeight: bandRows(for: job)))
    }

    mutating func validate() throws {
        try validateGrace(grace)
        try work.validateSingleValues(command: "render", size: view.size)
        try behaviour.validateSingleWait(command: "render")
        try sharing.validate(for: view.colorScheme, command: "render", lists: [])
        try work.validateOrder(
            command: "render", size: view.size,
            format: view.colorScheme.pixelFormat(supersampling: view.samplesPerAxis),
            allowsList: false)
        try firstPicture.validate(colorScheme: view.colorScheme)
        if previewOutput != nil && firstPicture.preview == nil {
            throw ValidationError(
                "--preview-output writes the preview; add --preview with a number of pixels, such as 4")
        }
        if firstPicture.preview != nil {
            if bandHeight != nil {
                throw ValidationError("--preview comes before a picture rendered whole; remove --band-height")
            }
            try view.validateFitsInMemory(because: "--preview comes before a picture rendered whole in memory")
        }
        if work.orders == [.centre] {
            if bandHeight != nil {
                throw ValidationError("--order centre needs the whole picture in memory; remove --band-height")
            }
            try view.validateFitsInMemory(because: "--order centre needs the whole picture in memory")
        }
        if format == .pbm && view.samplesPerAxis > 1 {
            throw ValidationError(
                "--format pbm has one bit per pixel; --supersample blends edges into gray, so use --format png")
        }
        if format == .pbm && view.colorScheme != .bw {
            throw ValidationError("--format pbm is black and white; add --color bw (or use --preset benchmarks-game)")
        }
        if format == .pbm, compression != nil {
            throw ValidationError(
                "--compression sets how hard the PNG encoder works; a PBM is not compressed, so remove it or use --format png"
            )
        }
        if let bandHeight, bandHeight < 1 {
            throw ValidationError("--band-height must be a number of rows, 1 or more (got \(bandHeight))")
        }
        if visuals.needsWholePicture {
            if bandHeight != nil {
                throw ValidationError(
                    "--ownership-map and --cost-map need the whole picture in memory; remove --band-height or the maps")
            }
            try view.validateFitsInMemory(
                because:
                    "--ownership-map and --cost-map need the whole picture in memory (without them, render streams it in bands)"
            )
        }
        if json, let (option, _) = outputs.first(where: { $0.path == OutputFile.standardOutputName }) {
            throw ValidationError(
                "\(option) - writes to standard output, where --json would write the report too; give \(option) "
                    + "a file name, or remove --json"
            )
        }
        try validateDistinctOutputs(outputs)
    }

    /// Every file the run writes, with the option that names it.
    private var outputs: [(option: String, path: String)] {
        [("-o", output)] + visuals.outputs + (previewOutput.map { [("--preview-output", $0)] } ?? [])
    }

    /// Rows per band, or nil for the whole picture at once: `--band-height`; the whole
    /// picture when a map needs it; otherwise the core's choice for the job.
    func bandRows(for job: RenderJob) -> Int? {
        if let bandHeight { return min(bandHeight, job.size.height) }
        if visuals.needsWholePicture || work.orders == [.centre] || firstPicture.preview != nil { return nil }
        return job.standardBandHeight(
            wholePictureBytes: Limits.wholePictureBytes, bandBytes: Limits.bandBytes, minimumBands: Limits.minimumBands)
    }

    func run() async throws {
        let job = RenderJob(view: view, work: work)
        try await CommandRun.perform(grace: grace) { watch in
            try await RenderSession(
                job: job, strategy: strategy.strategy, output: output, format: format,
                compression: compression ?? .balanced, json: json, visuals: visuals, bandRows: bandRows(for: job),
                behaviour: behaviour, sharing: sharing.sharing, order: work.orders[0], preview: firstPicture.preview,
                previewOutput: previewOutput, watch: watch
            ).run()
        }
    }
}
