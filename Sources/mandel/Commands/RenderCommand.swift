import ArgumentParser
import Foundation
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

    @Option(
        help: ArgumentHelp(
            "Render part K (from 0) of N of the picture as a part file, for 'mandel join'; auto takes K (and N) "
                + "from a batch engine: Slurm, Kubernetes, AWS Batch, GNU parallel (see docs/parts.md).",
            valueName: "K/N|auto"))
    var part: IndexChoice?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Parts in all, for --part auto where the engine gives only K.", valueName: "N"),
        transform: { try ValueParsing.integer($0) })
    var parts: Int?

    @Option(
        help: ArgumentHelp(
            "Render frame K (from 0) of N of a zoom from --zoom to --zoom-to, the zoom growing by the same factor "
                + "each frame; auto takes K (and N) from a batch engine, like --part.",
            valueName: "K/N|auto"))
    var frame: IndexChoice?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Frames in all, for --frame auto where the engine gives only K.", valueName: "N"),
        transform: { try ValueParsing.integer($0) })
    var frames: Int?

    @Option(
        parsing: .unconditional, help: ArgumentHelp("The last frame's zoom, for --frame.", valueName: "zoom"),
        transform: { try ValueParsing.real($0) })
    var zoomTo: Double?

    var outputCount: Int { outputs.count }

    /// Part K of N, from `--part` and `--parts` (and the environment for `auto`); nil without `--part`.
    func partSelection() throws -> (index: Int, count: Int)? {
        guard let part else { return nil }
        return try EngineIndex.resolve(
            part, count: parts, option: "--part", countOption: "--parts",
            environment: ProcessInfo.processInfo.environment)
    }

    /// The slices of the picture's PNG, which parts are made of.
    var sliceGrid: SliceGrid {
        let format = view.colorScheme.pixelFormat(supersampling: view.samplesPerAxis)
        return SliceGrid(height: view.size.height, bytesPerRow: format.bytesPerRow(width: view.size.width))
    }

    var workerThreads: Int {
        let job = RenderJob(view: view, work: work)
        return strategy.strategy.threadsStarted(for: job.plan(bandHeight: bandRows(for: job)))
    }

    mutating func validate() throws {
        try validateGrace(grace)
        try validateParts()
        try validateFrames()
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
        if view.deepView != nil && strategy.strategy.name == "process" {
            throw ValidationError(
                "--strategy process sends tiles to helper processes, which have no reference orbit yet; choose "
                    + "another strategy for a view rendered by perturbation")
        }
        if visuals.counts != nil && view.samplesPerAxis > 1 {
            throw ValidationError(
                "--counts writes one escape count per pixel; --supersample takes several, so remove one of them")
        }
        if visuals.needsWholePicture {
            if bandHeight != nil {
                throw ValidationError(
                    "--ownership-map, --cost-map and --counts need the whole picture in memory; remove --band-height "
                        + "or them")
            }
            try view.validateFitsInMemory(
                because:
                    "--ownership-map, --cost-map and --counts need the whole picture in memory (without them, render "
                    + "streams it in bands)"
            )
        }
        if json, let (option, path) = outputs.first(where: { OutputFile.namesStandardOutput($0.path) }) {
            throw ValidationError(
                "\(option) \(path) writes to standard output, where --json would write the report too; give \(option) "
                    + "a file name, or remove --json"
            )
        }
        try validateDistinctOutputs(outputs)
    }

    /// Every file the run writes, with the option that names it.
    private var outputs: [(option: String, path: String)] {
        [("-o", output)] + visuals.outputs.map(\.named) + (previewOutput.map { [("--preview-output", $0)] } ?? [])
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
        let picture = RenderJob(view: view, work: work)
        var job = picture
        var partRun: (index: Int, count: Int, pictureSize: ImageSize)?
        if let (index, count) = try partSelection() {
            let grid = sliceGrid
            job = picture.rows(grid.rowsRendered(for: grid.slices(ofPart: index, of: count)))
            partRun = (index, count, picture.size)
        }
        try await CommandRun.perform(grace: grace) { watch in
            var session = RenderSession(
                job: job, strategy: strategy.strategy, output: output, format: format,
                compression: compression ?? .balanced, json: json, visuals: visuals, bandRows: bandRows(for: job),
                behaviour: behaviour, sharing: sharing.sharing, order: work.orders[0], preview: firstPicture.preview,
                previewOutput: previewOutput, watch: watch)
            session.part = partRun
            try await session.run()
        }
    }

    /// Refuses up front what a part cannot be: everything else one machine renders works in parts.
    private func validateParts() throws {
        guard part != nil else {
            if parts != nil {
                throw ValidationError("--parts N is the count for --part auto; add --part auto, or remove --parts")
            }
            return
        }
        if let parts, parts < 1 { throw ValidationError("--parts must be 1 or more (got \(parts))") }
        if part == .auto && frame == .auto {
            throw ValidationError(
                "--part auto and --frame auto would both take the engine's one index; fix one of them")
        }
        if format == .pbm {
            throw ValidationError("--part writes a part of a PNG, for 'mandel join'; remove --format pbm")
        }
        if view.colorScheme == .histogram {
            throw ValidationError(
                "--color histogram spreads the palette over the whole picture's escape values, which no part sees "
                    + "alone; use --color smooth with parts, or render it on one machine")
        }
        if firstPicture.preview != nil {
            throw ValidationError("--preview shows a whole picture first; remove it with --part")
        }
        guard let (_, count) = try partSelection() else { return }
        let grid = sliceGrid
        if count > grid.sliceCount {
            throw ValidationError(
                "--part: a \(view.size) picture is \(grid.sliceCount) compressed slice\(grid.sliceCount == 1 ? "" : "s") "
                    + "of \(grid.sliceRows) row\(grid.sliceRows == 1 ? "" : "s"), and a part is whole slices; "
                    + "cut it into at most \(grid.sliceCount) parts (got \(count))")
        }
    }

    /// Checks `--frame`, `--frames` and `--zoom-to`, and sets the zoom of the frame asked for.
    private mutating func validateFrames() throws {
        guard let frame else {
            if frames != nil || zoomTo != nil {
                throw ValidationError(
                    "\(frames != nil ? "--frames" : "--zoom-to") belongs to a zoom sequence; add --frame K/N (or auto)")
            }
            return
        }
        guard let zoomTo else {
            throw ValidationError("--frame renders one frame of a zoom; add --zoom-to with the last frame's zoom")
        }
        guard zoomTo.isFinite && zoomTo > 0 else {
            throw ValidationError("--zoom-to must be a finite zoom greater than 0 (got \(zoomTo))")
        }
        if view.preset == .benchmarksGame {
            throw ValidationError("--frame zooms a view; the benchmarks-game preset has a fixed region")
        }
        if let frames, frames < 1 { throw ValidationError("--frames must be 1 or more (got \(frames))") }
        let (index, count) = try EngineIndex.resolve(
            frame, count: frames, option: "--frame", countOption: "--frames",
            environment: ProcessInfo.processInfo.environment)
        let zoom = Self.frameZoom(from: view.zoom?.value ?? 1, to: zoomTo, frame: index, of: count)
        view.zoom = DecimalValue(value: zoom, text: "\(zoom)")
    }

    /// Frame `index` of `count` of a zoom from `first` to `last`: each frame `(last/first)^(1/(count − 1))` deeper.
    static func frameZoom(from first: Double, to last: Double, frame index: Int, of count: Int) -> Double {
        guard count > 1 else { return first }
        if index == count - 1 { return last }
        return first * pow(last / first, Double(index) / Double(count - 1))
    }
}
