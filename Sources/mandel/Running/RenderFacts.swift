import Comparison
import Foundation
import ImageFiles
import MandelbrotCore
import Platform
import Probes

/// What a render is, settled before it starts. Every output of the run (the line, the
/// JSON, the PNG's text chunks, the trace's and the maps' titles) states these facts, so
/// none can disagree with another.
struct RenderFacts {
    let job: RenderJob
    let strategy: String
    /// The workers the plan keeps busy: what every output reports.
    let workers: Int
    /// The workers asked for, which a small picture may not have tiles enough for.
    let workersRequested: Int
    /// Rows per band, or nil for a picture rendered whole.
    let bandRows: Int?
    let bandCount: Int
    let format: ImageFormat
    let output: String
    /// The zoom from which neighbouring pixels coincide at this centre, if the view is past it.
    let precisionLimit: Double?
    /// The order the tiles were asked to be rendered in.
    let order: TileOrder
    /// Where the preview is written, if anywhere.
    var previewOutput: String? = nil
    /// The part of its picture this run renders, if it renders one.
    var part: (index: Int, count: Int, pictureSize: ImageSize)? = nil

    /// `part 3 of 7 of 1200x800, rows 343–457 (+9 for the dictionary): ` for a part, empty otherwise.
    var partText: String {
        guard let part, let window = job.window else { return "" }
        let grid = SliceGrid(
            height: part.pictureSize.height, bytesPerRow: job.pixelFormat.bytesPerRow(width: job.size.width))
        let rows = grid.rows(of: grid.slices(ofPart: part.index, of: part.count))
        let extra = rows.lowerBound - window.firstRow
        return
            "part \(part.index) of \(part.count) of \(part.pictureSize), rows \(rows.lowerBound)–\(rows.upperBound - 1)"
            + (extra > 0 ? " (+\(extra) before, for the dictionary)" : "") + ": "
    }

    init(
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
            // A part's pixels are spaced as its whole picture's.
            let height = job.window?.pictureHeight ?? job.size.height
            let grid = PixelSize(width: job.size.width * job.supersampling, height: height * job.supersampling)
            precisionLimit =
                viewport.hasCoincidentSamples(for: grid) ? viewport.precisionLimit(for: grid) ?? viewport.zoom : nil
        } else {
            precisionLimit = nil
        }
    }

    /// The warning for a view too deep for `Double`, if this one is.
    var precisionWarning: String? {
        guard let precisionLimit, case .view(let viewport) = job.region else { return nil }
        return "at --zoom \(viewport.zoom) neighbouring pixels sample the same point ('Double' runs out of digits "
            + "at this centre from about zoom \(String(format: "%.3g", precisionLimit))); the picture will show blocks, not detail"
    }

    /// The output's name as messages show it.
    var outputName: String { OutputFile.namesStandardOutput(output) ? "standard output" : Display.path(output) }

    /// The text chunks that say what the picture is: only what determines its pixels and
    /// their encoding, so that the file's bytes are the same whatever strategy, split, tile
    /// size, worker count, kernel or machine made it. Those are facts of the run: the report
    /// and the JSON give them.
    var textChunks: [PNGWriter.TextChunk] {
        // A part's job is a window of its picture's rows: nothing here depends on which rows.
        var chunks = [PNGWriter.TextChunk(key: "Software", text: "mandel \(Mandel.version)")]
        switch job.region {
        case .benchmarksGame:
            chunks.append(.init(key: "mandel.preset", text: Preset.benchmarksGame.rawValue))
        case .view(let viewport):
            chunks.append(.init(key: "mandel.center", text: "\(viewport.centerReal),\(viewport.centerImaginary)"))
            chunks.append(.init(key: "mandel.zoom", text: "\(viewport.zoom)"))
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
    static func describe(_ palette: Palette) -> String {
        func hex(_ value: UInt8) -> String { String(String(Int(value) | 0x100, radix: 16).dropFirst()) }
        let stops = palette.stops.map { "\($0.position):#\(hex($0.red))\(hex($0.green))\(hex($0.blue))" }
        return stops.joined(separator: " ") + "; cycle \(palette.cycle); offset \(palette.offset)"
    }

    /// The first line of an ownership map's legend and a trace's name.
    func title(wallSeconds: Double) -> String {
        "\(strategy), \(job.splitLabel), \(workers) worker\(workers == 1 ? "" : "s"), wall \(NumberFormat.seconds(wallSeconds))"
    }
}

/// What `mandel render` reports: one human line, or one JSON object with `--json`.
struct RenderSummary {
    let facts: RenderFacts
    let report: RenderReport
    let writeSeconds: Double
    let checksum: UInt64
    let behaviour: RunBehaviour
    let peakResidentBytes = ProcessSnapshot.peakResidentBytes

    /// The one line `mandel render` prints.
    var line: String {
        let job = facts.job
        if let cancel = behaviour.cancel {
            let requested = report.cancelRequestedSeconds ?? 0
            return "\(facts.strategy): cancelled \(NumberFormat.seconds(requested)) after the start: completion "
                + "\(NumberFormat.seconds(cancel.latencySeconds)) later, \(cancel.tilesStartedAfter) tiles started "
                + "after the request, cpu \(NumberFormat.seconds(cancel.cpuAfterSeconds)) after it, "
                + "\(cancel.threadsRunningAfter) threads still running" + behaviourText
                + (facts.previewOutput != nil && report.firstPictureSeconds != nil
                    ? "; only the preview written, to \(Display.path(facts.previewOutput!))" : "; no picture written")
        }
        var line =
            "\(facts.strategy): \(facts.partText)\(job.size), \(job.iterations) iterations, \(facts.workers) "
            + "worker\(facts.workers == 1 ? "" : "s") (\(job.splitLabel))"
            + " | wall \(NumberFormat.seconds(report.wallSeconds)), cpu \(NumberFormat.seconds(report.cpu.total))"
            + ", \(NumberFormat.decimal(megapixelsPerSecond)) Mpixel/s, \(NumberFormat.rate(iterationsPerSecond)) iterations/s"
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
        if let mainQueue = behaviour.mainQueue {
            text +=
                " | main queue late p99 \(NumberFormat.seconds(mainQueue.p99)), max \(NumberFormat.seconds(mainQueue.max)), "
                + "\(mainQueue.missedFrames) missed frame\(mainQueue.missedFrames == 1 ? "" : "s")"
        }
        if let samples = behaviour.samples { text += " | peak \(samples.peakThreads) threads" }
        if let merge = report.merge { text += " | " + WorkloadText.describe(merge) }
        if let first = report.firstPictureSeconds {
            text += " | preview on the main queue at \(NumberFormat.seconds(first))"
        }
        if facts.order == .centre, let centre = report.centreDoneSeconds {
            text += " | centre first: central quarter done at \(NumberFormat.seconds(centre))"
        }
        return text
    }

    private var megapixelsPerSecond: Double { Double(facts.job.size.pixelCount) / report.wallSeconds / 1e6 }
    private var iterationsPerSecond: Double { Double(report.totalIterations) / report.wallSeconds }

    /// The JSON object of `--json`: keys in snake case and sorted; absent values are null.
    var json: String {
        let job = facts.job
        var viewport: Viewport?
        if case .view(let view) = job.region { viewport = view }
        let fields: [String: JSONValue] = [
            "strategy": .string(facts.strategy),
            "width": .number(Double(job.size.width)),
            "height": .number(Double(job.size.height)),
            "iterations": .number(Double(job.iterations)),
            "workers": .number(Double(facts.workers)),
            "workers_requested": .number(Double(facts.workersRequested)),
            "split": .string(job.split.rawValue),
            "tile": .string(job.tileSize.description),
            "color": .string(job.colorScheme.rawValue),
            "kernel": .string(job.kernel.rawValue),
            "region": .string(job.isBenchmarksGame ? Preset.benchmarksGame.rawValue : "view"),
            "center": viewport.map { .array([.number($0.centerReal), .number($0.centerImaginary)]) } ?? .null,
            "zoom": viewport.map { .number($0.zoom) } ?? .null,
            "julia": job.julia.map { .array([.number($0.real), .number($0.imaginary)]) } ?? .null,
            "supersample": .number(Double(job.supersampling)),
            "wall_seconds": .number(report.wallSeconds),
            "cpu_seconds": .number(report.cpu.total),
            "user_seconds": .number(report.cpu.user),
            "system_seconds": .number(report.cpu.system),
            "total_iterations": .number(Double(report.totalIterations)),
            "megapixels_per_second": .number(megapixelsPerSecond),
            "iterations_per_second": .number(iterationsPerSecond),
            "threads_used": .number(Double(report.threadsUsed)),
            "worker_busy_seconds": .array(report.workerBusySeconds.map { .number($0) }),
            "imbalance": .number(report.imbalance),
            "format": .string(facts.format.rawValue),
            "write_seconds": .number(writeSeconds),
            "output": .string(facts.output),
            "checksum": .string(NumberFormat.checksum(checksum)),
            "band_rows": facts.bandRows.map { .number(Double($0)) } ?? .null,
            "bands": .number(Double(facts.bandCount)),
            "peak_resident_bytes": .number(Double(peakResidentBytes)),
            "precision_limit_zoom": facts.precisionLimit.map { .number($0) } ?? .null,
            "main_queue": behaviour.mainQueue.map { lateness in
                .object([
                    "p50": .number(lateness.p50), "p99": .number(lateness.p99), "max": .number(lateness.max),
                    "missed_frames": .number(Double(lateness.missedFrames)), "ticks": .number(Double(lateness.ticks)),
                ])
            } ?? .null,
            "peak_threads": behaviour.samples.map { .number(Double($0.peakThreads)) } ?? .null,
            "cancelled": .bool(behaviour.cancel != nil),
            "cancel_requested_seconds": report.cancelRequestedSeconds.map { .number($0) } ?? .null,
            "cancel_latency": behaviour.cancel.map { .number($0.latencySeconds) } ?? .null,
            "tiles_after_cancel": behaviour.cancel.map { .number(Double($0.tilesStartedAfter)) } ?? .null,
            "cpu_after_cancel": behaviour.cancel.map { .number($0.cpuAfterSeconds) } ?? .null,
            "threads_running_after_cancel": behaviour.cancel.map { .number(Double($0.threadsRunningAfter)) } ?? .null,
            "order": .string(facts.order.rawValue),
            "part": facts.part.map { .array([.number(Double($0.index)), .number(Double($0.count))]) } ?? .null,
            "picture_height": .number(Double(facts.part?.pictureSize.height ?? job.size.height)),
            "first_picture_seconds": report.firstPictureSeconds.map { .number($0) } ?? .null,
            "centre_done_seconds": report.centreDoneSeconds.map { .number($0) } ?? .null,
            "merge": report.merge.map { .string($0.sharing.merge.rawValue) } ?? .null,
            "merge_batch": report.merge.map { .number(Double($0.sharing.batch)) } ?? .null,
            "merge_batches": report.merge.map { .number(Double($0.batches)) } ?? .null,
            "merge_seconds": report.merge.map { .number($0.mergeSeconds) } ?? .null,
            "merge_wait_seconds": report.merge.map { .number($0.waitSeconds) } ?? .null,
            "helper_crashes": .number(Double(report.helperCrashes)),
            "work_retried": .number(Double(report.workRetried)),
        ]
        return JSONValue.object(fields).text
    }
}

/// A JSON value, written with sorted keys; numbers that are whole are written without a fraction.
enum JSONValue {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    var text: String {
        switch self {
        case .string(let value):
            let data = try! JSONSerialization.data(withJSONObject: [value], options: [.fragmentsAllowed])
            return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
        case .number(let value):
            guard value.isFinite else { return "null" }
            return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
        case .bool(let value): return value ? "true" : "false"
        case .array(let values): return "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let fields):
            return "{"
                + fields.keys.sorted().map { "\(JSONValue.string($0).text):\(fields[$0]!.text)" }.joined(separator: ",")
                + "}"
        case .null: return "null"
        }
    }
}
