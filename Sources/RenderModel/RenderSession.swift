import Dispatch
package import ImageFiles
package import MandelOptions
package import MandelbrotCore
import Platform
import Probes
package import WorkVisuals

/// One `mandel render` from its outputs opened to its report printed, on the main actor.
///
/// The one path for every picture: a picture rendered whole is a render of one band,
/// which keeps a record per tile for the maps and the trace.
@MainActor
package struct RenderSession {
    package let job: RenderJob
    package let strategy: any RenderStrategy
    package let outputs: RenderOutputOptions
    package let visuals: VisualOptions
    /// Rows per band, or nil for the whole picture at once.
    package let bandRows: Int?
    package let behaviour: BehaviourOptions
    /// How the run shares its histogram, orders its tiles, waits after them and is cancelled.
    package let settings: RunSettings
    /// Every how many pixels a preview samples, if one comes first.
    package let preview: Int?
    package let watch: SignalWatch
    /// The part of the picture this run writes, as a part file, and the picture's size; nil for a whole picture.
    package var part: (index: Int, count: Int, pictureSize: ImageSize)? = nil
    /// The frame of a zoom this run renders, and its zoom as computed; nil outside a zoom sequence.
    package var frame: (index: Int, count: Int, zoom: String)? = nil
    /// The orbit a deep view takes its reference from (a zoom's, or one read from a file); nil to compute its own.
    package var orbit: ZoomOrbit? = nil
    /// Whether the note on how a deep view is computed is printed (a zoom's run prints it for its first deep frame only).
    package var printsDeepNote = true
    /// `--orbit-out`'s file, written from ``orbit`` after the render and published with the run's other
    /// outputs; nil where none is asked for, or where the run writes it itself (a zoom's frames).
    package var orbitOutput: String? = nil

    package init(
        job: RenderJob, strategy: any RenderStrategy, outputs: RenderOutputOptions, visuals: VisualOptions,
        bandRows: Int?, behaviour: BehaviourOptions, settings: RunSettings, preview: Int?, watch: SignalWatch
    ) {
        self.job = job
        self.strategy = strategy
        self.outputs = outputs
        self.visuals = visuals
        self.bandRows = bandRows
        self.behaviour = behaviour
        self.settings = settings
        self.preview = preview
        self.watch = watch
    }

    /// A render that finished without delivering the preview it was asked for: a bug, never a silent empty file.
    private struct PreviewNotDelivered: Error, CustomStringConvertible {
        var description: String { "the preview was not delivered" }
    }

    /// Ends a render that `--cancel-after` cancelled: no output is published, and the report is printed.
    private struct CancelledOnPurpose: Error {
        let summary: RenderSummary
    }

    package func run() async throws {
        // Every output is opened (and checked) before any pixel is rendered, and all are published together.
        let orbitPaths = orbitOutput.map { [$0] } ?? []
        let paths =
            [outputs.output] + visuals.outputs.map(\.path) + (outputs.previewOutput.map { [$0] } ?? []) + orbitPaths
        let summary: RenderSummary
        do {
            summary = try await CommandRun.publishing(paths, watch: watch) { files in
                let summary = try await render(
                    into: files[0], extras: Array(files.dropFirst().dropLast(orbitPaths.count)))
                if let orbit, orbitOutput != nil, let file = files.last {
                    try OrbitFile.write(orbit, to: file, cancellation: watch.cancellation)
                }
                return summary
            }
            // A zoom's frame is in place once done: a stop or a failure later in the run leaves it, and says so.
            if frame != nil { watch.placedEarly(outputs.output) }
        } catch let cancelled as CancelledOnPurpose {
            summary = cancelled.summary
        }
        // Standard output carries a file (-o -, --trace -): the report goes to standard error.
        try HumanReport(toStandardError: paths.contains(where: OutputFile.namesStandardOutput)).line(
            outputs.json ? summary.json : summary.line)
        watch.terminationNote =
            "terminated: finished the render within the grace period and wrote \(summary.facts.outputName)"
    }

    /// Renders into the opened files and returns the report, once every file is complete.
    private func render(into image: OutputFile, extras: [OutputFile]) async throws -> RenderSummary {
        try checkRoom(image: image, extras: extras)
        let render = try PictureRender(
            job: job, bandHeight: bandRows, keepsCounts: visuals.keepsCounts,
            extraBytes: Self.saturatingSum(
                Self.saturatingSum(mapBytes, encoderBytes), job.deep == nil ? 0 : orbit?.heldBytes(besides: job) ?? 0),
            histogramMerges: [settings.sharing.merge],
            strategies: [strategy], previewEvery: preview,
            cancellation: watch.cancellation)
        var facts = RenderFacts(
            job: job, strategy: strategy, plan: render.plan, bandRows: bandRows, format: outputs.format,
            output: outputs.output, order: settings.order)
        facts.previewOutput = outputs.previewOutput
        facts.part = part
        facts.frame = frame
        if let warning = facts.precisionWarning { printError("warning: " + warning) }
        if printsDeepNote, let note = facts.deepNote { printError("note: " + note) }
        let writer = BandWriter(
            stream: try ImageStream(of: facts, output: image, outputs: outputs), cancellation: watch.cancellation)
        let meter = ProgressMeter(
            totalTiles: render.tilesPerRun, display: ProgressMeter.display(forced: visuals.progress),
            serial: render.serialProgress)
        // A strategy that starts no thread works on the main queue, where it was started.
        if strategy.threadsStarted(for: render.plan) == 0 { meter.announceBlockedMainQueue(strategy: strategy.name) }
        // Feeding a meter that draws nothing would still wake the main queue after
        // finished tiles: thousands of futex calls a second on a fast render.
        let onTileFinished: (@Sendable () -> Void)? = meter.draws ? { @Sendable in meter.tileFinished() } : nil
        let previewFile = outputs.previewOutput == nil ? nil : extras.last
        let visualFiles = Array(extras.prefix(visuals.outputs.count))
        let previewWriter = previewFile.map { [watch, previewOutput = outputs.previewOutput] in
            PreviewWriter(file: $0, compression: outputs.effectiveCompression, workers: job.workers) {
                watch.placedEarly(previewOutput!)
            }
        }
        // On the main queue, as soon as the preview is done: handed to its writer, which puts it in place.
        let onPreview: @MainActor @Sendable (Double) -> Void = { _ in
            if let canvas = render.previewCanvas { previewWriter?.write(canvas) }
        }
        let outcome: ObservedRun.Outcome
        do {
            outcome = try await ObservedRun(behaviour: behaviour, signals: watch.cancellation).run {
                flag, plannedStop in
                try await render.run(
                    strategy, sink: writer, settings: settings,
                    cancellation: flag, onTileFinished: onTileFinished, onPreview: onPreview, plannedStop: plannedStop,
                    orbit: orbit)
            }
            meter.finish()
        } catch {
            meter.finish()
            // The preview's writer lets go of its file before the outputs are discarded. The
            // preview is written first: when its write failed too, its failure came first.
            if let previewWriter {
                do { try await previewWriter.drain() } catch let previewFailure as ImageFileError {
                    throw previewFailure
                } catch {}
            }
            throw error
        }
        try await previewWriter?.drain()
        // The strategy's completion resumed us: from here on, the main queue owns the result.
        dispatchPrecondition(condition: .onQueue(.main))
        let report = outcome.report
        if outcome.wasCancelled {
            throw CancelledOnPurpose(
                summary: RenderSummary(
                    facts: facts, report: report, writeSeconds: 0, checksum: 0, behaviour: outcome.behaviour,
                    previewPlaced: outputs.previewOutput.map(watch.wasPlacedEarly) ?? false))
        }
        if previewFile != nil && report.firstPictureSeconds == nil {
            // A preview that never came (a failed render throws before this) is a bug, not a silent loss.
            throw PreviewNotDelivered()
        }
        try writer.finish()
        try writeExtras(
            visualFiles, render: render, report: report, behaviour: outcome.behaviour,
            title: facts.title(wallSeconds: report.wallSeconds))
        return RenderSummary(
            facts: facts, report: report, writeSeconds: writer.writeSeconds, checksum: writer.checksum,
            behaviour: outcome.behaviour)
    }

    /// The rows of the job that `--counts` writes: all of them, or a part's own rows (not those it renders
    /// only for its dictionary), so that the parts' arrays stacked in K order are the picture's.
    private var countsRows: Range<Int> {
        guard let part, let window = job.window else { return 0..<job.size.height }
        let rows = RenderFacts.ownRows(of: job, part: part)
        return (rows.lowerBound - window.firstRow)..<(rows.upperBound - window.firstRow)
    }

    /// Checks the outputs whose size is known before the render (the picture's least, the counts' exact)
    /// against their file systems' free space.
    private func checkRoom(image: OutputFile, extras: [OutputFile]) throws(ImageFileError) {
        let pictureBytes = ImageStream.minimumBytes(
            format: outputs.format, size: job.size, pixelFormat: job.pixelFormat)
        var needs = [
            OutputRoom.Need(
                file: image, bytes: pictureBytes,
                what: "a \(job.size) \(outputs.format.rawValue.uppercased()) takes at least")
        ]
        for (file, output) in zip(extras, visuals.outputs) where output.kind == .counts {
            let size = ImageSize(width: job.size.width, height: countsRows.count)
            needs.append(
                OutputRoom.Need(
                    file: file, bytes: NumPyFile.bytes(width: size.width, height: size.height),
                    what: "the counts of a \(size) picture take"))
        }
        try OutputRoom.check(needs)
    }

    /// Memory the maps will need beside the render's: each is a picture of its own.
    private var mapBytes: Int {
        let pixels = job.size.pixelCount
        return (visuals.ownershipMap != nil ? pixels * 3 : 0) + (visuals.costMap != nil ? pixels * 7 : 0)
    }

    private static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// Memory the encoder keeps (a PNG's: the rows it stages for its slices).
    private var encoderBytes: Int {
        outputs.format.encoder.memoryNeeded(
            for: ImageStream.picture(size: job.size, pixelFormat: job.pixelFormat, workers: job.workers))
    }

    /// Draws and writes the maps and the trace that were asked for, into their opened files.
    private func writeExtras(
        _ files: [OutputFile], render: PictureRender, report: RenderReport, behaviour: RunBehaviour, title: String
    ) throws {
        for (file, output) in zip(files, visuals.outputs) {
            switch output.kind {
            case .ownershipMap:
                try PictureWriter.writePNG(
                    OwnershipMap.draw(canvas: render.canvas!, report: report, title: title), to: file)
            case .counts:
                try NumPyFile.write(render.counts!, rows: countsRows, to: file)
            case .costMap:
                let picture = CostMap.draw(
                    counts: render.counts!, grid: SampleGrid.of(job), kernel: job.kernel, julia: job.julia)
                try PictureWriter.writePNG(picture, to: file)
            case .trace:
                try ChromeTrace.write(
                    report, title: "mandel render: " + title, counters: Self.counters(behaviour, report: report),
                    emit: { chunk throws(ImageFileError) in try file.write(chunk) },
                    checkpoint: { if watch.cancellation.isCancelled { throw CommandRun.Stopped() } })
            }
        }
    }
}

/// Writes the work maps: RGB pictures drawn in memory.
package enum PictureWriter {
    /// Writes an RGB picture as a PNG into `output`; the file is put in place with the run's other outputs.
    package static func writePNG(_ picture: RGBPicture, to output: OutputFile) throws(ImageFileError) {
        let writer = try PNGWriter(
            output: output, width: picture.width, height: picture.height, channels: 3,
            texts: [
                .init(key: "Software", text: "mandel \(MandelVersion.current)")
            ], workers: ProcessorCount.available)
        try picture.bytes.withUnsafeBufferPointer { bytes throws(ImageFileError) in
            try writer.write(rows: bytes, count: picture.height)
        }
        try writer.finish()
        try output.flushAndClose()
    }
}

extension RenderSession {
    /// The trace's counter tracks: the main queue's lateness per 60 Hz frame, and the process's threads.
    package static func counters(_ behaviour: RunBehaviour, report: RenderReport) -> [ChromeTrace.Counter] {
        func offset(_ start: UInt64) -> Double { Double(Int64(bitPattern: start &- report.startNanoseconds)) / 1e9 }
        var counters: [ChromeTrace.Counter] = []
        if let lateness = behaviour.mainQueue {
            counters.append(
                ChromeTrace.Counter(
                    name: "main queue lateness (ms), most per frame", firstSeconds: offset(lateness.startNanoseconds),
                    intervalSeconds: Double(MainQueueHeartbeat.frameNanoseconds) / 1e9,
                    values: lateness.frameMaximaMicroseconds.map { Double($0) / 1000 }))
        }
        if let samples = behaviour.samples {
            counters.append(
                ChromeTrace.Counter(
                    name: "process threads", firstSeconds: offset(samples.startNanoseconds),
                    intervalSeconds: Double(ProcessSampler.windowNanoseconds) / 1e9,
                    values: samples.windows.map { Double($0.threads) }))
        }
        return counters
    }
}
