import Foundation
import Comparison
import MandelbrotCore

/// What `mandel render` reports: one human line, or one JSON object with `--json`.
struct RenderSummary: Encodable {
    let strategy: String
    let width: Int
    let height: Int
    let iterations: Int
    let workers: Int
    let split: String
    let tile: String
    let color: String
    let center: [Double]
    let zoom: Double
    let wallSeconds: Double
    let cpuSeconds: Double
    let userSeconds: Double
    let systemSeconds: Double
    let totalIterations: UInt64
    let megapixelsPerSecond: Double
    let iterationsPerSecond: Double
    let threadsUsed: Int
    let workerBusySeconds: [Double]
    let imbalance: Double
    let format: String
    let writeSeconds: Double
    let output: String
    let checksum: String
    /// Rows per band of a banded render; nil when the picture was rendered whole.
    let bandRows: Int?
    /// The most resident memory the process has had, in bytes.
    let peakResidentBytes: Int

    init(report: RenderReport, job: RenderJob, viewport: Viewport, format: String, writeSeconds: Double, output: String, checksum: UInt64, bandRows: Int?) {
        strategy = report.strategy
        width = job.size.width
        height = job.size.height
        iterations = job.iterations
        workers = report.plannedWorkers
        split = job.split.rawValue
        tile = job.tileSize.description
        color = job.colorScheme.rawValue
        center = [viewport.centerReal, viewport.centerImaginary]
        zoom = viewport.zoom
        wallSeconds = report.wallSeconds
        cpuSeconds = report.cpu.total
        userSeconds = report.cpu.user
        systemSeconds = report.cpu.system
        totalIterations = report.totalIterations
        megapixelsPerSecond = Double(job.size.pixelCount) / report.wallSeconds / 1e6
        iterationsPerSecond = Double(report.totalIterations) / report.wallSeconds
        threadsUsed = report.threadsUsed
        workerBusySeconds = report.workerBusySeconds
        imbalance = report.imbalance
        self.format = format
        self.writeSeconds = writeSeconds
        self.output = output
        self.checksum = String(format: "%016llx", checksum)
        self.bandRows = bandRows
        peakResidentBytes = ProcessSnapshot.peakResidentBytes
    }

    /// The one line `mandel render` prints.
    var line: String {
        let splitText = split == "tiles" ? "tiles \(tile)" : split
        return "\(strategy): \(width)x\(height), \(iterations) iterations, \(workers) worker\(workers == 1 ? "" : "s") (\(splitText))"
            + " | wall \(Format.seconds(wallSeconds)), cpu \(Format.seconds(cpuSeconds))"
            + ", \(Format.decimal(megapixelsPerSecond)) Mpixel/s, \(Format.rate(iterationsPerSecond)) iterations/s"
            + " | \(format) \(Format.seconds(writeSeconds))\(bandText) -> \(output)"
    }

    /// For a banded render: the band height, and that writing overlapped the render.
    private var bandText: String {
        guard let bandRows else { return "" }
        let bands = (height + bandRows - 1) / bandRows
        return " (\(bands) band\(bands == 1 ? "" : "s") of \(bandRows) rows, written while rendering; peak \(peakResidentBytes >> 20) MiB resident)"
    }

    /// The JSON object of `--json`, keys in snake case and sorted.
    var json: String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }
}

/// Number formats shared by every report.
enum Format {
    /// `0.123 s` with three significant decimals, or milliseconds below 10 ms.
    static func seconds(_ value: Double) -> String {
        value < 0.01 ? String(format: "%.2f ms", value * 1000) : String(format: "%.3f s", value)
    }

    /// One decimal place.
    static func decimal(_ value: Double) -> String { String(format: "%.1f", value) }

    /// A rate with an SI prefix: `1.52 G`.
    static func rate(_ value: Double) -> String {
        switch value {
        case 1e9...: String(format: "%.2f G", value / 1e9)
        case 1e6...: String(format: "%.2f M", value / 1e6)
        case 1e3...: String(format: "%.2f k", value / 1e3)
        default: String(format: "%.0f ", value)
        }
    }
}
