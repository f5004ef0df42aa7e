import Comparison
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

func sampleComparison(checksums: [UInt64] = [7, 7, 7]) -> StrategyComparison {
    let names = ["serial", "thread", "gcd"]
    let times: [[Double]] = [[0.1, 0.11, 0.1], [0.05, 0.051, 0.052], [0.049, 0.05, 0.05]]
    return StrategyComparison(
        baselineName: "serial",
        results: names.indices.map { index in
            StrategyResult(
                strategy: names[index], wallSeconds: times[index], userSeconds: 0.1, systemSeconds: 0.01,
                workers: index == 0 ? 1 : 2, threadsUsed: index == 0 ? 1 : 2, imbalance: 1.02,
                checksum: checksums[index], pixels: 1000, iterations: 50_000)
        })
}

/// Collects `<g class="series">` elements and `<text>` contents of an SVG.
final class SVGSummary: NSObject, XMLParserDelegate {
    var seriesNames: [String] = []
    var texts: [String] = []
    private var inText = false

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if name == "g", attributes["class"] == "series", let series = attributes["data-name"] {
            seriesNames.append(series)
        }
        if name == "text" {
            inText = true
            texts.append("")
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inText { texts[texts.count - 1] += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text" { inText = false }
    }

    static func parse(_ svg: String) -> SVGSummary? {
        let summary = SVGSummary()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = summary
        return parser.parse() ? summary : nil
    }
}

@Suite("Comparison exports")
struct ExportTests {
    @Test("speedup and efficiency are against serial's median")
    func speedup() {
        let comparison = sampleComparison()
        #expect(comparison.fastest.strategy == "gcd")
        #expect(comparison.speedup(of: comparison.results[2]) == 2)
        #expect(comparison.efficiency(of: comparison.results[2]) == 1)
        #expect(comparison.mismatchedStrategies.isEmpty)
        #expect(sampleComparison(checksums: [7, 8, 7]).mismatchedStrategies == ["thread"])
    }

    @Test("JSON carries the documented keys for every strategy")
    func json() throws {
        let workload = ComparisonExport.Workload(
            width: 10, height: 10, region: "view", center: [-0.5, 0], zoom: 1, iterations: 50, color: "bw",
            kernel: "simd", split: "tiles", tile: "8x8", workers: 2, warmup: 1, runs: 3)
        let export = ComparisonExport(
            compare: sampleComparison(), workload: workload, machine: MachineDescription())
        let object = try #require(try JSONSerialization.jsonObject(with: export.json) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.count == 3)
        for key in [
            "strategy", "times", "min", "median", "max", "mean", "stddev", "user", "system", "speedup",
            "efficiency", "imbalance", "checksum", "median_ci", "verdict",
        ] {
            #expect(results.allSatisfy { $0[key] != nil }, "missing \(key)")
        }
        let machine = try #require(object["machine"] as? [String: Any])
        #expect((machine["processors"] as? Int ?? 0) >= 1)
        #expect((machine["cpu"] as? String)?.isEmpty == false && (machine["os"] as? String)?.contains("Linux") == true)
        #expect(object["time"] is String)
        #expect((object["workload"] as? [String: Any])?["split"] as? String == "tiles")
    }

    @Test("CSV has a header and one row per strategy")
    func csv() {
        let workload = ComparisonExport.Workload(
            width: 10, height: 10, region: "view", center: nil, zoom: nil, iterations: 50, color: "bw",
            kernel: "simd", split: "tiles", tile: "8x8", workers: 2, warmup: 1, runs: 3)
        let lines = ComparisonExport(
            compare: sampleComparison(), workload: workload, machine: MachineDescription()
        )
        .csv.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("strategy,median,"))
        #expect(lines[3].hasPrefix("gcd,"))
    }

    @Test("the bar chart is valid SVG with one series per strategy, a title and axis label")
    func barChart() throws {
        let bars = sampleComparison().results.map {
            SVGChart.Bar(
                label: $0.strategy, value: $0.wall.median, low: $0.wall.min, high: $0.wall.max,
                highlighted: $0.strategy == "gcd")
        }
        let svg = SVGChart.bars(title: "wall time", subtitle: "test", valueLabel: "wall time (ms)", bars: bars)
        let summary = try #require(SVGSummary.parse(svg))
        #expect(summary.seriesNames == ["serial", "thread", "gcd"])
        #expect(summary.texts.contains("wall time (ms)"))
    }

    @Test("the line chart is valid SVG with one series per strategy and a legend entry each")
    func lineChart() throws {
        let series = ["serial", "thread"].map { name in
            SVGChart.Series(name: name, points: [(8, 100), (16, 50), (32, 30)])
        }
        let svg = SVGChart.lines(
            title: "t", subtitle: "s", xLabel: "tile", yLabel: "ms", logarithmicX: true, logarithmicY: true,
            series: series)
        let summary = try #require(SVGSummary.parse(svg))
        #expect(summary.seriesNames == ["serial", "thread"])
        #expect(summary.texts.contains("serial") && summary.texts.contains("thread"))
        #expect(summary.texts.contains("tile (log scale)"))
    }
}
