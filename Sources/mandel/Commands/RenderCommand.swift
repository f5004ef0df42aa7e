import ArgumentParser
import Foundation
import ImageFiles
import MandelOptions
import MandelbrotCore
import RenderModel
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

    @OptionGroup
    var outputs: RenderOutputOptions

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

    @OptionGroup(title: "Seeing the work")
    var visuals: VisualOptions

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
        transform: { try ValueParsing.integer($0, allowed: "of 1 or more, at most \(Int.max)") })
    var bandHeight: Int?

    @OptionGroup(title: "Parts, frames and windows")
    var batch: BatchOptions

    var outputCount: Int { namedOutputs.count }

    var workerThreads: Int { ProcessStart.threadsNeeded(by: strategy.strategy, for: plannedWork) }

    var helperProcesses: Int { ProcessStart.helperProcesses(of: strategy.strategy, for: plannedWork) }

    /// The plan of the render, as the checks before Dispatch starts see it.
    private var plannedWork: WorkPlan {
        let job = windowed(RenderJob(view: view, work: work))
        return job.plan(bandHeight: bandRows(for: job))
    }

    /// `picture`, or its `--window`.
    private func windowed(_ picture: RenderJob) -> RenderJob {
        guard let window = batch.window else { return picture }
        return picture.window(x: window.x, y: window.y, size: ImageSize(width: window.width, height: window.height))
    }

    mutating func validate() throws {
        try view.validatePreset()
        try validateGrace(grace)
        try batch.validateParts(outputs: outputs, view: view, firstPicture: firstPicture)
        try batch.validateWindow(view: view)
        try batch.validateFrames(view: view, output: outputs.output)
        try validateZoomOutputs()
        try work.validateSingleValues(command: "render", size: view.size)
        try behaviour.validateSingleWait(command: "render")
        try sharing.validate(for: view.colorScheme, command: "render", lists: [])
        try work.validateOrder(
            command: "render", size: view.size,
            format: view.colorScheme.pixelFormat(supersampling: view.samplesPerAxis),
            allowsList: false)
        try firstPicture.validate(colorScheme: view.colorScheme)
        if outputs.previewOutput != nil && firstPicture.preview == nil {
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
        try outputs.validate(for: view)
        if let bandHeight, bandHeight < 1 {
            throw ValidationError("--band-height must be a number of rows, 1 or more (got \(bandHeight))")
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
        if outputs.json, let (option, path) = namedOutputs.first(where: { OutputFile.namesStandardOutput($0.path) }) {
            throw ValidationError(
                "\(option) \(path) writes to standard output, where --json would write the report too; give \(option) "
                    + "a file name, or remove --json"
            )
        }
        try validateDistinctOutputs(
            namedOutputs + (batch.orbitOutput.map { [("--orbit-out", $0)] } ?? [])
                + (batch.orbitInput.map { [("--orbit", $0)] } ?? []))
    }

    /// Refuses what a run of every frame, or an orbit file, cannot do.
    private func validateZoomOutputs() throws {
        if batch.rendersEveryFrame {
            let single =
                visuals.outputs.map(\.named.option) + (outputs.previewOutput == nil ? [] : ["--preview-output"])
            if let option = single.first {
                throw ValidationError(
                    "\(option) names one file, and --frames \(batch.frames!) renders every frame; render the frames one "
                        + "at a time with --frame K/N to write it")
            }
        }
        guard batch.orbitOutput != nil || batch.orbitInput != nil else { return }
        let option = batch.orbitOutput != nil ? "--orbit-out" : "--orbit"
        guard deepestView?.deepView != nil else {
            throw ValidationError(
                "\(option): this render has no reference orbit, its view being rendered with Doubles (a zoom under "
                    + "1e6, --precision double, --julia or a preset); add --precision perturbation for one")
        }
        if let path = batch.orbitOutput, OutputFile.namesStandardOutput(path) {
            throw ValidationError("--orbit-out \(path): an orbit is a file for other tasks to read; give a file name")
        }
    }

    /// The view of the zoom's deepest frame (the view itself outside a zoom), whose orbit every frame takes.
    private var deepestView: ViewOptions? {
        guard let frames = try? batch.framesRendered() else { return view }
        let first = batch.frameView(of: view, frame: 0, of: frames.count)
        let last = batch.frameView(of: view, frame: frames.count - 1, of: frames.count)
        return DeepView.decimalExponent(ofZoom: last.zoom?.text ?? "1")
            >= DeepView.decimalExponent(ofZoom: first.zoom?.text ?? "1") ? last : first
    }

    /// The orbit every frame (or part) takes, read from `--orbit` or computed by the first render that needs
    /// it; nil where each render computes its own (no zoom and no orbit file) or none has an orbit.
    private func sharedOrbit(pictureSamples: ImageSize, limit: Int) throws -> ZoomOrbit? {
        guard batch.isZoomSequence || batch.orbitInput != nil || batch.orbitOutput != nil,
            let deepestView, let deepest = deepestView.deepView
        else { return nil }
        // The deepest frame's ball, the smallest: a nucleus the orbit stops at lies in every frame.
        let reach = windowed(RenderJob(view: deepestView, work: work)).deepReach
        let orbit = ZoomOrbit(
            centerReal: deepest.centerReal, centerImaginary: deepest.centerImaginary,
            bits: deepest.precisionBits(for: pictureSamples), limit: limit,
            periodBall: deepest.detectsPeriod
                ? ZoomOrbit.PeriodBall(zoom: deepest.zoom, farthestOffset: reach.farthestOffset) : nil)
        guard let path = batch.orbitInput else { return orbit }
        return try OrbitFile.read(path, for: orbit)
    }

    /// Every file the run writes, with the option that names it.
    private var namedOutputs: [(option: String, path: String)] {
        [("-o", outputs.output)] + visuals.outputs.map(\.named)
            + (outputs.previewOutput.map { [("--preview-output", $0)] } ?? [])
    }

    /// Rows per band, or nil for the whole picture at once: `--band-height`; the whole
    /// picture when a map needs it; otherwise the core's choice for the job.
    func bandRows(for job: RenderJob) -> Int? {
        if let bandHeight { return min(bandHeight, job.size.height) }
        if visuals.needsWholePicture || work.orders == [.centre] || firstPicture.preview != nil {
            return nil
        }
        return job.standardBandHeight(
            wholePictureBytes: Limits.wholePictureBytes, bandBytes: Limits.bandBytes, minimumBands: Limits.minimumBands)
    }

    /// The whole picture of `view`, its deep view (if any) taking `orbit`'s precision.
    private static func job(of view: ViewOptions, work: WorkOptions, orbit: ZoomOrbit?) -> RenderJob {
        var job = RenderJob(view: view, work: work)
        if let orbit, job.deep != nil { job.deep?.sharedOrbitBits = orbit.bits }
        return job
    }

    func run() async throws {
        let sequence = try batch.framesRendered()
        let frameName = sequence == nil ? nil : try FrameName(outputs.output, option: "-o")
        try await CommandRun.perform(grace: grace) { watch in
            let whole = RenderJob(view: view, work: work)
            let orbit = try sharedOrbit(pictureSamples: whole.deepReach.pictureSamples, limit: whole.kernelLimit)
            // A zoom's orbit file is the run's, written after its last frame: opened (and its path checked)
            // before the first, and removed if the run stops or fails. One render's is published with its picture.
            let zoomOrbitPaths = sequence == nil ? [] : batch.orbitOutput.map { [$0] } ?? []
            try await CommandRun.publishing(zoomOrbitPaths, watch: watch) { files in
                try await renderFrames(sequence, frameName: frameName, orbit: orbit, watch: watch)
                if let orbit, let file = files.first {
                    try OrbitFile.write(orbit, to: file, cancellation: watch.cancellation)
                }
            }
        }
    }

    @MainActor private func renderFrames(
        _ sequence: (indices: Range<Int>, count: Int)?, frameName: FrameName?, orbit: ZoomOrbit?, watch: SignalWatch
    ) async throws {
        var notedDeep = false
        for index in sequence?.indices ?? 0..<1 {
            let frameView = sequence.map { batch.frameView(of: view, frame: index, of: $0.count) } ?? view
            var frameOutputs = outputs
            if let frameName { frameOutputs.output = frameName.name(ofFrame: index) }
            let picture = Self.job(of: frameView, work: work, orbit: orbit)
            var job = windowed(picture)
            var partRun: (index: Int, count: Int, pictureSize: ImageSize)?
            if let (index, count) = try batch.partSelection() {
                let grid = batch.sliceGrid(for: view)
                job = picture.rows(grid.rowsRendered(for: grid.slices(ofPart: index, of: count)))
                partRun = (index, count, picture.size)
            }
            var session = RenderSession(
                job: job, strategy: strategy.strategy, outputs: frameOutputs, visuals: visuals,
                bandRows: bandRows(for: job), behaviour: behaviour,
                settings: behaviour.settings(sharing: sharing.sharing, order: work.orders[0]),
                preview: firstPicture.preview, watch: watch)
            session.part = partRun
            session.frame = sequence.map { (index, $0.count, frameView.zoom?.text ?? "1") }
            session.orbit = orbit
            if sequence == nil, orbit != nil { session.orbitOutput = batch.orbitOutput }
            session.printsDeepNote = !notedDeep
            notedDeep = notedDeep || job.deep != nil
            // The next frame's table, built while this frame's pixels are computed.
            if let orbit, let sequence, index + 1 < sequence.indices.upperBound {
                let next = batch.frameView(of: view, frame: index + 1, of: sequence.count)
                orbit.prepare(
                    windowed(Self.job(of: next, work: work, orbit: orbit)),
                    buildsTable: !strategy.strategy.workersBuildTheTable)
            }
            try await session.run()
            if watch.stoppedBy != nil { throw CommandRun.Stopped() }
        }
    }
}
