import Comparison
import Foundation
import MandelbrotCore
import Testing

/// The CSV export read by its header, column by column, against the JSON export of the same rows:
/// a column written under another's name (min and max swapped, say) shows as a disagreement.
@Suite("CSV agrees with JSON")
struct CSVAgreesWithJSONTests {
    /// A comparison whose every field is filled, each with a different value; `speed` divides every time.
    static func fullComparison(speed: Double = 1) -> StrategyComparison {
        let names = ["serial", "gcd", "tasks"]
        return StrategyComparison(
            baselineName: "serial",
            results: names.indices.map { index in
                let scale = Double(index + 1)
                var behaviour = StrategyBehaviour(
                    mainQueue: .init(
                        p50: 0.001 * scale, p99: 0.004 * scale, max: 0.009 * scale, missedFrames: 3 + index,
                        ticks: 40 + index),
                    peakThreads: 5 + index, peakResidentBytes: 7_000_000 + index,
                    cancel: .init(
                        latency: 0.002 * scale, tilesAfterCancel: 1.5, cpuAfterCancel: 0.003 * scale,
                        threadsRunningAfter: index, finishedFirst: 0))
                behaviour.merge = MergeStatistics(
                    sharing: HistogramSharing(merge: .mutex, batch: 64), batches: 90 + index, values: 5_000,
                    mergeSeconds: 0.0007 * scale, waitSeconds: 0.0002 * scale)
                behaviour.centreDoneSeconds = 0.011 * scale
                behaviour.firstPictureSeconds = 0.005 * scale
                return StrategyResult(
                    strategy: names[index], wallSeconds: [0.12, 0.1, 0.14, 0.11].map { $0 / scale / speed },
                    userSeconds: 0.2 * scale, systemSeconds: 0.01 * scale, workers: index == 0 ? 1 : 2,
                    threadsUsed: index == 0 ? 1 : 2, imbalance: 1.01 + 0.01 * scale, checksum: 0xabc,
                    pixels: 3072, iterations: 90_000, behaviour: behaviour)
            })
    }

    static let workload = ComparisonExport.Workload(
        width: 64, height: 48, region: "view", center: [-0.5, 0], zoom: 1, iterations: 50, color: "histogram",
        kernel: "simd", split: "tiles", tile: "16x16", workers: 2, warmup: 0, runs: 4)

    /// The JSON value a CSV column holds: its own key, or the nested value its name flattens.
    static func jsonValue(for column: String, in row: [String: Any]) -> Any? {
        let nested: [String: (String, String)] = [
            "main_queue_p50": ("main_queue", "p50"), "main_queue_p99": ("main_queue", "p99"),
            "main_queue_max": ("main_queue", "max"), "missed_frames": ("main_queue", "missed_frames"),
            "heartbeat_ticks": ("main_queue", "ticks"),
        ]
        if let (outer, inner) = nested[column] { return (row[outer] as? [String: Any])?[inner] }
        if column == "median_ci_low" { return (row["median_ci"] as? [Double])?.first }
        if column == "median_ci_high" { return (row["median_ci"] as? [Double])?.last }
        return row[column]
    }

    /// Checks every column of `line` under `header` against `row`.
    static func expectAgreement(header: [String], line: [String], row: [String: Any]) {
        #expect(header.count == line.count, "\(line.count) values under \(header.count) columns")
        for (column, text) in zip(header, line) {
            let value = jsonValue(for: column, in: row)
            #expect(value != nil, "column \(column) has no JSON counterpart")
            switch value {
            case let number as NSNumber where !(value is String):
                // To the last digit but one: corelibs' JSON and Swift's description part there.
                let csv = Double(text) ?? .nan
                #expect(
                    abs(csv - number.doubleValue) <= 1e-14 * abs(csv),
                    "\(row["strategy"] ?? "?") \(column): CSV \(text), JSON \(number)")
            case let string as String:
                #expect(text == string, "\(column): CSV \(text), JSON \(string)")
            default:
                #expect(text.isEmpty, "\(column): CSV \(text), JSON null")
            }
        }
    }

    @Test("every column of compare's CSV holds the JSON's value of the same name, and min ≤ median ≤ max")
    func compare() throws {
        let export = ComparisonExport(
            compare: Self.fullComparison(), workload: Self.workload, machine: MachineDescription())
        let object = try #require(try JSONSerialization.jsonObject(with: export.json) as? [String: Any])
        let rows = try #require(object["results"] as? [[String: Any]])
        let lines = export.csv.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = try #require(lines.first)
        #expect(lines.count == 1 + rows.count)
        for (line, row) in zip(lines.dropFirst(), rows) {
            Self.expectAgreement(header: header, line: line, row: row)
            let value = { (name: String) in Double(line[header.firstIndex(of: name)!]) ?? .nan }
            #expect(value("min") <= value("median") && value("median") <= value("max"), "\(line)")
            #expect(value("min") <= value("median_ci_low") && value("median_ci_high") <= value("max"), "\(line)")
            #expect(
                value("main_queue_p50") <= value("main_queue_p99") && value("main_queue_p99") <= value("main_queue_max")
            )
        }
    }

    @Test("every column of sweep's CSV holds the JSON's value of the same name: the point's rows and each fit")
    func sweep() throws {
        // Speeds 1, 1.8 and 2.5 at 1, 2 and 4 workers: sigma 0.022, kappa 0.044, a peak at 5 workers.
        let export = ComparisonExport(
            sweep: [(1, 1.0), (2, 1.8), (4, 2.5)].map { workers, speed in
                (
                    workers: workers, tile: nil, tileWait: nil, mergeBatch: nil,
                    comparison: Self.fullComparison(speed: speed)
                )
            },
            workload: Self.workload, machine: MachineDescription())
        let object = try #require(try JSONSerialization.jsonObject(with: export.json) as? [String: Any])
        let points = try #require(object["points"] as? [[String: Any]])
        let rows = points.flatMap { ($0["results"] as? [[String: Any]]) ?? [] }
        let fits = try #require(object["scaling"] as? [[String: Any]])
        let lines = export.csv.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = try #require(lines.first)
        #expect(Array(header.prefix(3)) == ["point_workers", "point_tile", "point_tile_wait"])
        #expect(header.suffix(5).allSatisfy { $0.hasPrefix("scaling_") })
        #expect(lines.count == 1 + rows.count && rows.count == 9)
        #expect(lines.dropFirst().map { $0[0] } == ["1", "1", "1", "2", "2", "2", "4", "4", "4"])
        for (line, row) in zip(lines.dropFirst(), rows) {
            // The row's own columns, then its strategy's fit under the JSON's names with scaling_.
            let fit = try #require(fits.first { $0["strategy"] as? String == row["strategy"] as? String })
            var both = row
            for (key, value) in fit where key != "strategy" { both["scaling_" + key] = value }
            Self.expectAgreement(header: Array(header.dropFirst(3)), line: Array(line.dropFirst(3)), row: both)
            let value = { (name: String) in Double(line[header.firstIndex(of: name)!]) ?? .nan }
            #expect(abs(value("scaling_contention") - 1 / 45) < 1e-3, "\(line)")
            #expect(abs(value("scaling_coherency") - 2 / 45) < 1e-3, "\(line)")
            #expect(line[header.firstIndex(of: "scaling_peak_workers")!] == "5")
        }
    }

    @Test("a sweep over another axis leaves the fit's columns empty")
    func sweepWithoutFit() throws {
        let export = ComparisonExport(
            sweep: [(workers: nil, tile: "8x8", tileWait: nil, mergeBatch: nil, comparison: Self.fullComparison())],
            workload: Self.workload, machine: MachineDescription())
        let lines = export.csv.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(lines.count == 4)
        for line in lines.dropFirst() {
            #expect(line.count == lines[0].count && line.suffix(5).allSatisfy(\.isEmpty), "\(line)")
        }
    }
}
