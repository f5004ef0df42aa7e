import Comparison
import Foundation
package import ImageFiles
package import MandelOptions
package import MandelbrotCore
import Platform
import Probes

/// Why a view is rendered with `Double` (the vector kernel) or by perturbation.
package enum PrecisionReason: String, Sendable {
    /// `Double` by default: a zoom below 10⁶ whose samples stay distinct.
    case shallow
    /// Perturbation by default: a zoom of 10⁶ or deeper (``DeepView/defaultPerturbationZoomExponent``).
    case deepZoom = "deep-zoom"
    /// Perturbation by default: neighbouring samples coincide in `Double`.
    case samplesCoincide = "samples-coincide"
    /// `--precision` chose against the default.
    case asked
    /// `--julia` renders with `Double` only.
    case julia
    /// The preset's picture, always `Double`.
    case preset
}

/// What a render is, settled before it starts. Every output of the run (the line, the
/// JSON, the PNG's text chunks, the trace's and the maps' titles) states these facts, so
/// none can disagree with another.
package struct RenderFacts {
    package let job: RenderJob
    package let strategy: String
    /// The workers the plan keeps busy: what every output reports.
    package let workers: Int
    /// The workers asked for, which a small picture may not have tiles enough for.
    package let workersRequested: Int
    /// Rows per band, or nil for a picture rendered whole.
    package let bandRows: Int?
    package let bandCount: Int
    package let format: ImageFormat
    package let output: String
    /// The zoom from which neighbouring pixels coincide at this centre, if the view is past it.
    package let precisionLimit: Double?
    /// Why the view is rendered as it is (``PrecisionReason``).
    package let precisionReason: PrecisionReason
    /// The order the tiles were asked to be rendered in.
    package let order: TileOrder
    /// Where the preview is written, if anywhere.
    package var previewOutput: String? = nil
    /// The part of its picture this run renders, if it renders one.
    package var part: (index: Int, count: Int, pictureSize: ImageSize)? = nil
    /// The frame of a zoom this run renders, and its zoom; nil outside a zoom sequence.
    package var frame: (index: Int, count: Int, zoom: String)? = nil

    /// `frame 3 of 64, zoom 1.5e30: ` for a frame of a zoom, then ``pieceText``.
    package var partText: String {
        guard let frame else { return pieceText }
        return "frame \(frame.index) of \(frame.count), zoom \(frame.zoom): " + pieceText
    }

    /// `part 3 of 7 of 1200x800, rows 343–457 (+9 for the dictionary): ` for a part, empty otherwise.
    private var pieceText: String {
        if part == nil, let window = job.window {
            return "window \(window.firstColumn),\(window.firstRow) of \(window.pictureSize): "
        }
        guard let part, let window = job.window else { return "" }
        let rows = Self.ownRows(of: job, part: part)
        let extra = rows.lowerBound - window.firstRow
        return
            "part \(part.index) of \(part.count) of \(part.pictureSize), rows \(rows.lowerBound)–\(rows.upperBound - 1)"
            + (extra > 0 ? " (+\(extra) before, for the dictionary)" : "") + ": "
    }

    /// The rows of its picture a part's run answers for: its slices' rows, without the rows before
    /// them that it renders only for its first slice's dictionary.
    package static func ownRows(of job: RenderJob, part: (index: Int, count: Int, pictureSize: ImageSize)) -> Range<Int>
    {
        let grid = SliceGrid(
            height: part.pictureSize.height, bytesPerRow: job.pixelFormat.bytesPerRow(width: job.size.width))
        return grid.rows(of: grid.slices(ofPart: part.index, of: part.count))
    }

    package init(
        job: RenderJob, strategy: any RenderStrategy, plan: WorkPlan, bandRows: Int?, format: ImageFormat,
        output: String, order: TileOrder = .rows
    ) {
        self.order = order
        self.job = job
        self.strategy = strategy.name
        workers = strategy.concurrentWorkers(for: plan)
        workersRequested = job.workers
        self.bandRows = bandRows
        bandCount = plan.bandCount
        self.format = format
        self.output = output
        if case .view(let viewport) = job.region {
            // A part's or a window's pixels are spaced as its whole picture's.
            let picture = job.pictureSize
            let grid = PixelSize(
                width: picture.width * job.supersampling, height: picture.height * job.supersampling)
            let coincide = viewport.hasCoincidentSamples(for: grid)
            precisionLimit = job.deep == nil && coincide ? viewport.precisionLimit(for: grid) ?? viewport.zoom : nil
            let deepZoom =
                (job.deep?.zoomExponent ?? log10(viewport.zoom)) >= DeepView.defaultPerturbationZoomExponent
            precisionReason =
                switch (job.deep != nil, coincide, deepZoom) {
                case (true, true, _): .samplesCoincide
                case (true, false, true): .deepZoom
                case (true, false, false): .asked
                case (false, false, false): .shallow
                case (false, _, _): job.julia != nil ? .julia : .asked
                }
        } else {
            precisionLimit = nil
            precisionReason = .preset
        }
    }

    /// The warning for a view too deep for `Double`, if this one is.
    package var precisionWarning: String? {
        guard let precisionLimit, case .view(let viewport) = job.region else { return nil }
        return "at --zoom \(viewport.zoom) neighbouring pixels sample the same point ('Double' runs out of digits "
            + "at this centre from about zoom \(String(format: "%.3g", precisionLimit))); the picture will show "
            + "blocks, not detail"
    }

    /// The note for a view rendered by perturbation.
    package var deepNote: String? {
        guard let deep = job.deep else { return nil }
        let reason =
            switch precisionReason {
            case .samplesCoincide:
                "--zoom \(deep.zoom) is past what Double resolves (about 1e13 at most centres): rendering by "
            case .deepZoom:
                "--zoom \(deep.zoom) is 1e6 or deeper, where Double's rounding gets some pixels' counts wrong: "
                    + "rendering by "
            default: "--precision perturbation: Double resolves --zoom \(deep.zoom) here, but rendering by "
            }
        return reason
            + "perturbation of one reference orbit computed in GNU MPFR (\(deep.precisionBits(for: job.deepReach.pictureSamples)) bits)"
            + (deep.usesTable ? " with BLA" : ", every step")
            + ", the pixels its Doubles cannot decide counted again in MPFR"
    }

    /// The output's name as messages show it.
    package var outputName: String { OutputFile.namesStandardOutput(output) ? "standard output" : Display.path(output) }

    /// The text chunks that say what the picture is: only what determines its pixels and
    /// their encoding, so that the file's bytes are the same whatever strategy, split, tile
    /// size, worker count, kernel or machine made it. Those are facts of the run: the report
    /// and the JSON give them.
    package var textChunks: [PNGWriter.TextChunk] {
        // A part's job is a window of its picture's rows: nothing here depends on which rows.
        var chunks = [PNGWriter.TextChunk(key: "Software", text: "mandel \(MandelVersion.current)")]
        switch job.region {
        case .benchmarksGame:
            chunks.append(.init(key: "mandel.preset", text: Preset.benchmarksGame.rawValue))
        case .view(let viewport):
            chunks.append(.init(key: "mandel.center", text: ViewText.center(of: job, viewport)))
            chunks.append(.init(key: "mandel.zoom", text: ViewText.zoom(of: job, viewport)))
            // A window's pixels are its picture's: the picture's size places them, and the window says which.
            if part == nil, let window = job.window {
                chunks.append(.init(key: "mandel.size", text: "\(window.pictureSize)"))
                chunks.append(
                    .init(
                        key: "mandel.window",
                        text: "\(window.firstColumn),\(window.firstRow),\(job.size.width),\(job.size.height)"))
            }
            if let julia = job.julia {
                chunks.append(.init(key: "mandel.julia", text: "\(julia.real),\(julia.imaginary)"))
            }
        }
        return chunks + [
            .init(key: "mandel.iterations", text: "\(job.iterations)"),
            .init(key: "mandel.color", text: job.colorScheme.rawValue),
            .init(key: "mandel.supersample", text: "\(job.supersampling)"),
        ] + (usesPalette ? [.init(key: "mandel.palette", text: Self.describe(job.palette))] : [])
    }

    /// Whether the colouring walks the palette (bw and gray ignore it).
    private var usesPalette: Bool { job.colorScheme == .smooth || job.colorScheme == .histogram }

    /// A palette in words that name it exactly: each stop's position and colour, the cycle and the offset.
    package static func describe(_ palette: Palette) -> String {
        func hex(_ value: UInt8) -> String { String(String(Int(value) | 0x100, radix: 16).dropFirst()) }
        let stops = palette.stops.map { "\($0.position):#\(hex($0.red))\(hex($0.green))\(hex($0.blue))" }
        return stops.joined(separator: " ") + "; cycle \(palette.cycle); offset \(palette.offset)"
    }

    /// The first line of an ownership map's legend and a trace's name.
    package func title(wallSeconds: Double) -> String {
        "\(strategy), \(job.splitLabel), \(workers) worker\(workers == 1 ? "" : "s"), wall "
            + "\(NumberFormat.seconds(wallSeconds))"
    }
}

/// What `mandel render` reports: one human line, or one JSON object with `--json`.
package struct RenderSummary {
    package let facts: RenderFacts
    package let report: RenderReport
    package let writeSeconds: Double
    package let checksum: UInt64
    package let behaviour: RunBehaviour
    /// Whether `--preview-output` was put in place (it stays when the full picture is cancelled).
    package var previewPlaced = false
    package let peakResidentBytes = ProcessSnapshot.peakResidentBytes

    /// The one line `mandel render` prints.
    package var line: String {
        let job = facts.job
        if let cancel = behaviour.cancel {
            let requested = report.cancelRequestedSeconds ?? 0
            return "\(facts.strategy): cancelled \(NumberFormat.seconds(requested)) after the start: completion "
                + "\(NumberFormat.seconds(cancel.latencySeconds)) later, \(cancel.tilesStartedAfter) tiles started "
                + "after the request, cpu \(NumberFormat.seconds(cancel.cpuAfterSeconds)) after it, "
                + "\(cancel.threadsRunningAfter) threads still running" + behaviourText
                + (previewPlaced
                    ? "; only the preview written, to \(Display.path(facts.previewOutput!))" : "; no picture written")
        }
        var line =
            "\(facts.strategy): \(facts.partText)\(job.size), \(job.iterations) iterations, \(facts.workers) "
            + "worker\(facts.workers == 1 ? "" : "s") (\(job.splitLabel))"
            + " | wall \(NumberFormat.seconds(report.wallSeconds)), cpu \(NumberFormat.seconds(report.cpu.total))"
            + ", \(megapixelsPerSecond.map(NumberFormat.decimal) ?? "n/a") Mpixel/s, "
            + "\(NumberFormat.rate(iterationsPerSecond)) iterations/s"
            + " | \(facts.format.rawValue) \(NumberFormat.seconds(writeSeconds))"
        if let bandRows = facts.bandRows {
            line +=
                " (\(facts.bandCount) band\(facts.bandCount == 1 ? "" : "s") of \(bandRows) rows, written while "
                + "rendering; peak \(peakResidentBytes >> 20) MiB resident)"
        }
        if report.helperCrashes > 0 {
            line +=
                " | \(report.helperCrashes) helper\(report.helperCrashes == 1 ? "" : "s") replaced, "
                + "\(report.workRetried) tile\(report.workRetried == 1 ? "" : "s") sent again"
        }
        return line + behaviourText + " -> \(facts.outputName)"
    }

    /// The main queue's lateness and the peak threads, when measured.
    private var behaviourText: String {
        var text = ""
        if let lateness = behaviour.mainQueue {
            let mainQueue = StrategyBehaviour.MainQueue(lateness)
            if let p99 = mainQueue.p99, let max = mainQueue.max, let missed = mainQueue.missedFrames {
                text +=
                    " | main queue late p99 \(NumberFormat.seconds(p99)), max \(NumberFormat.seconds(max)), "
                    + "\(missed) missed frame\(missed == 1 ? "" : "s")"
            } else {
                text += " | main queue: no ticks (none was due)"
            }
        }
        if let samples = behaviour.samples { text += " | peak \(samples.peakThreads) threads" }
        if let merge = report.merge { text += " | " + WorkloadText.describe(merge) }
        if let phases = report.deepPhases {
            text += " | " + DeepText.describe(phases, wallSeconds: report.wallSeconds, workers: facts.job.workers)
            if let untrusted = report.deepUntrustedPixels {
                func pixels(_ count: Int) -> String { count == 1 ? "1 pixel" : "\(count) pixels" }
                if untrusted.counted > 0 { text += "; \(pixels(untrusted.counted)) counted again in MPFR" }
                if untrusted.left > 0 { text += "; \(pixels(untrusted.left)) uncertain (too long to count in MPFR)" }
            }
        }
        if let first = report.firstPictureSeconds {
            text += " | preview on the main queue at \(NumberFormat.seconds(first))"
        }
        if facts.order == .centre, let centre = report.centreDoneSeconds {
            text += " | centre first: central quarter done at \(NumberFormat.seconds(centre))"
        }
        return text
    }

    /// The pixels rendered over the wall time: the whole picture's, or a cancelled render's
    /// finished tiles' (nil when its records are per band and worker, which cannot tell them).
    package var megapixelsPerSecond: Double? {
        guard behaviour.cancel != nil else { return Double(facts.job.size.pixelCount) / report.wallSeconds / 1e6 }
        guard facts.bandCount == 1 else { return nil }
        let finished = report.tiles.reduce(0) { $0 + ($1.isFinished ? $1.rect.width * $1.rect.height : 0) }
        return Double(finished) / report.wallSeconds / 1e6
    }

    /// The iterations of the finished tiles over the wall time.
    package var iterationsPerSecond: Double { Double(report.totalIterations) / report.wallSeconds }

    /// The JSON object of `--json` (RenderJSON says which keys it has).
    package var json: String { String(decoding: JSONOutput.encode(RenderJSON(self)), as: UTF8.self) }
}
