import Comparison
import Foundation
import MandelbrotCore
import ProcessTestSupport
import RenderModel
import StrategyCatalog
import Testing

/// The behaviour charts of `mandel compare` and the charts of `mandel sweep`, read back from their SVG: the
/// titles and axes, a series or bar per strategy, and the values against the JSON the same run exported.
@Suite("Charts of compare and sweep, read back")
struct ChartTests {
    @Test("compare --threads-chart: a line per strategy, a point per 10 ms window, peaking at the JSON's peak_threads")
    func compareThreads() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 4 tiles, each waiting 40 ms: serial takes at least 160 ms, the others about 80 ms, so several windows.
        let result = try MandelProcess.run(
            [
                "compare", "--size", "32", "--tile", "16", "--workers", "2", "--iterations", "64", "--tile-wait", "40",
                "--warmup", "0", "--runs", "1", "--threads-chart", "t.svg", "--json", "c.json",
            ], in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        let rows = try ChartRows(jsonAt: folder + "/c.json")
        let chart = try SVGChartFile(path: folder + "/t.svg")
        #expect(chart.title == "mandel compare: the process's threads while each strategy renders")
        #expect(chart.heading == chart.title)
        #expect(
            chart.subtitle
                == "32x32, tiles 16x16, 2 workers, each tile waits 40 ms (blocking); last counted run, 10 ms samples")
        #expect(chart.xLabel == "time since the start (ms)")
        #expect(chart.yLabel == "threads (instruments not counted)")
        #expect(chart.legend == StrategyCatalog.names)
        #expect(chart.series.map(\.name) == StrategyCatalog.names)
        #expect(rows.names == StrategyCatalog.names)
        let xAxis = try chart.xAxis(logarithmic: false)
        let yAxis = try chart.yAxis(logarithmic: false)
        for (name, group) in chart.series {
            let row = try rows.row(name)
            // A time series: no markers, one polyline whose points are the windows in order.
            #expect(group.descendants("circle").isEmpty, "\(name)")
            let points = try #require(group.descendants("polyline").first).polylinePoints.map {
                (x: xAxis.value(at: $0.x), y: yAxis.value(at: $0.y))
            }
            let wallMilliseconds = try row.number("median") * 1000
            // The sampler starts before the render and stops after it: no more windows than its wall time
            // covers, with a second's room for a loaded machine; at least one.
            #expect(
                !points.isEmpty && Double(points.count - 1) * 10 <= wallMilliseconds + 1000,
                "\(name): \(points.count) windows for \(wallMilliseconds) ms")
            for (window, point) in points.enumerated() {
                #expect(abs(point.x - Double(window) * 10) < 0.01, "\(name): window \(window) drawn at \(point.x) ms")
                #expect(abs(point.y - point.y.rounded()) < 0.01, "\(name): \(point.y) threads")
                #expect(point.y >= 1, "\(name): \(point.y) threads")
            }
            let peak = try row.integer("peak_threads")
            #expect(
                abs((points.map(\.y).max() ?? 0) - Double(peak)) < 0.01,
                "\(name): the chart peaks at \(points.map(\.y).max() ?? 0), the JSON says \(peak)")
            if name == "serial" {
                #expect(points.count >= 2, "serial rendered for \(wallMilliseconds) ms in \(points.count) window")
            }
        }
    }

    @Test("compare --chart: a bar per strategy at its median, the whisker from min to max, the fastest outlined")
    func compareWallTimes() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "compare", "--size", "64", "--tile", "16", "--workers", "2", "--iterations", "200", "--strategies",
                "gcd,tasks", "--warmup", "0", "--runs", "3", "--chart", "w.svg", "--json", "c.json",
            ], in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        let rows = try ChartRows(jsonAt: folder + "/c.json")
        let chart = try SVGChartFile(path: folder + "/w.svg")
        #expect(chart.title == "mandel compare: wall time per strategy")
        #expect(chart.xLabel == "wall time (ms), shorter is better")
        #expect(chart.legend == ["bar: median of the runs", "whisker: min to max"])
        #expect(chart.series.map(\.name) == ["serial", "gcd", "tasks"])
        let axis = try chart.xAxis(logarithmic: false)
        for (name, group) in chart.series {
            let row = try rows.row(name)
            let (median, low, high) = (
                try row.number("median") * 1000, try row.number("min") * 1000, try row.number("max") * 1000
            )
            let bar = try ChartBar(group, on: axis)
            #expect(bar.label == name)
            #expect(nearly(bar.start, 0), "\(name): the bar starts at \(bar.start)")
            #expect(nearly(bar.end, median), "\(name): bar to \(bar.end) ms, median \(median) ms")
            #expect(nearly(bar.whiskerLow, low), "\(name): whisker from \(bar.whiskerLow) ms, min \(low) ms")
            #expect(nearly(bar.whiskerHigh, high), "\(name): whisker to \(bar.whiskerHigh) ms, max \(high) ms")
            #expect(bar.tooltipNames == ["median", "min", "max"], "\(name): \(bar.tooltipNames)")
            for (shown, value) in zip(bar.tooltip, [median, low, high]) {
                #expect(abs(shown - value) <= SVGChartFile.rounding(of: value), "\(name): \(shown) for \(value)")
            }
            let fastest = try row.object["verdict"] as? String == "fastest"
            #expect(
                bar.outlined == fastest, "\(name): outlined \(bar.outlined), verdict \(row.object["verdict"] ?? "")")
        }
    }

    @Test("compare --latency-chart: a bar per strategy at its p99, the whisker from p50 to max, as in the JSON")
    func compareLatency() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Each render waits at least 40 ms: the heartbeat (every 2 ms) ticks during every one of them.
        let result = try MandelProcess.run(
            [
                "compare", "--size", "32", "--tile", "16", "--workers", "2", "--iterations", "64", "--tile-wait", "20",
                "--tile-wait-mode", "async", "--warmup", "0", "--runs", "1", "--latency-chart", "l.svg", "--json",
                "c.json",
            ], in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        let rows = try ChartRows(jsonAt: folder + "/c.json")
        let chart = try SVGChartFile(path: folder + "/l.svg")
        #expect(chart.title == "mandel compare: how late the main queue ran")
        #expect(chart.heading == chart.title)
        #expect(
            chart.subtitle
                == "32x32, tiles 16x16, 2 workers, each tile waits 20 ms (async); heartbeat every tick, all counted runs"
        )
        #expect(chart.xLabel == "heartbeat lateness (ms); shorter is more responsive")
        #expect(chart.legend == ["bar: 99th percentile", "whisker: median to max"])
        #expect(chart.series.map(\.name) == StrategyCatalog.names)
        let axis = try chart.xAxis(logarithmic: false)
        for (name, group) in chart.series {
            let queue = try #require(try rows.row(name).object["main_queue"] as? [String: Any], "\(name)")
            let (p50, p99, max) = (
                try #require(queue["p50"] as? Double, "\(name)") * 1000,
                try #require(queue["p99"] as? Double, "\(name)") * 1000,
                try #require(queue["max"] as? Double, "\(name)") * 1000
            )
            #expect(0 < p50 && p50 <= p99 && p99 <= max, "\(name): p50 \(p50), p99 \(p99), max \(max) ms")
            let bar = try ChartBar(group, on: axis)
            #expect(bar.label == name)
            #expect(nearly(bar.start, 0), "\(name): the bar starts at \(bar.start)")
            #expect(nearly(bar.end, p99), "\(name): bar to \(bar.end) ms, p99 \(p99) ms")
            #expect(nearly(bar.whiskerLow, p50), "\(name): whisker from \(bar.whiskerLow) ms, p50 \(p50) ms")
            #expect(nearly(bar.whiskerHigh, max), "\(name): whisker to \(bar.whiskerHigh) ms, max \(max) ms")
            #expect(bar.whiskerLow <= bar.end && bar.end <= bar.whiskerHigh, "\(name): the bar lies inside its whisker")
            // The tooltip names the same three figures, by their own names.
            #expect(bar.tooltip.count == 3, "\(name): \(bar.tooltip)")
            #expect(bar.tooltipNames == ["p99", "median", "max"], "\(name): \(bar.tooltipNames)")
            for (shown, value) in zip(bar.tooltip, [p99, p50, max]) {
                #expect(abs(shown - value) <= SVGChartFile.rounding(of: value), "\(name): \(shown) for \(value)")
            }
        }
    }

    @Test("compare --first-picture-chart: a bar per strategy at its preview, the whisker to the full picture")
    func compareFirstPicture() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Three runs: the medians lie apart from the fastest and the slowest run, which the whisker must not show.
        let result = try MandelProcess.run(
            [
                "compare", "--size", "32", "--tile", "16", "--workers", "2", "--iterations", "64", "--preview", "4",
                "--warmup", "0", "--runs", "3", "--first-picture-chart", "f.svg", "--json", "c.json",
            ], in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        let rows = try ChartRows(jsonAt: folder + "/c.json")
        let chart = try SVGChartFile(path: folder + "/f.svg")
        #expect(chart.title == "mandel compare: time to the first picture")
        #expect(chart.heading == chart.title)
        #expect(
            chart.subtitle
                == "32x32, 64 iterations, tiles 16x16, 2 workers; preview of every 4th pixel, medians of the counted runs"
        )
        #expect(chart.xLabel == "ms after the start; shorter is sooner")
        #expect(chart.legend == ["bar: the preview", "whisker: the full picture"])
        #expect(chart.series.map(\.name) == StrategyCatalog.names)
        let axis = try chart.xAxis(logarithmic: false)
        for (name, group) in chart.series {
            let row = try rows.row(name)
            let first = try row.number("first_picture_seconds") * 1000
            let full = try row.number("median") * 1000
            #expect(0 < first && first <= full, "\(name): preview at \(first) ms, full picture at \(full) ms")
            let bar = try ChartBar(group, on: axis)
            #expect(bar.label == name)
            #expect(nearly(bar.start, 0), "\(name): the bar starts at \(bar.start)")
            #expect(nearly(bar.end, first), "\(name): bar to \(bar.end) ms, preview at \(first) ms")
            #expect(nearly(bar.whiskerLow, first), "\(name): whisker from \(bar.whiskerLow) ms, preview at \(first) ms")
            #expect(nearly(bar.whiskerHigh, full), "\(name): whisker to \(bar.whiskerHigh) ms, full at \(full) ms")
            #expect(bar.end > 0 && bar.end <= bar.whiskerHigh, "\(name): the preview comes first")
            // The tooltip: the preview and the full picture, each once, by name.
            #expect(bar.tooltipNames == ["preview", "full picture"], "\(name): \(bar.tooltipNames)")
            #expect(bar.tooltip.count == 2, "\(name): \(bar.tooltip)")
            for (shown, value) in zip(bar.tooltip, [first, full]) {
                #expect(abs(shown - value) <= SVGChartFile.rounding(of: value), "\(name): \(shown) for \(value)")
            }
        }
    }

    @Test("sweep --tile --chart: wall time against tile size, both axes logarithmic, a point per tile and strategy")
    func sweepTiles() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "sweep", "--size", "32", "--workers", "2", "--iterations", "64", "--tile", "8,16,32", "--strategies",
                "thread", "--warmup", "0", "--runs", "1", "--chart", "s.svg", "--json", "s.json",
            ], in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        #expect(!result.standardOutput.contains("preview"), "no preview asked, no preview matrix")
        let points = try SweepPoints(jsonAt: folder + "/s.json", key: "tile")
        #expect(points.values == ["8x8", "16x16", "32x32"])
        let chart = try SVGChartFile(path: folder + "/s.svg")
        #expect(chart.title == "mandel sweep: wall time against tile size")
        #expect(chart.heading == chart.title)
        #expect(chart.subtitle == "32x32, 64 iterations, 2 workers; square tiles, side in pixels")
        #expect(chart.xLabel == "tile side (pixels) (log scale)")
        #expect(chart.yLabel == "median wall time (ms) (log scale)")
        #expect(chart.series.map(\.name) == ["serial", "thread"])
        #expect(chart.legend == ["serial", "thread"])
        let yAxis = try chart.yAxis(logarithmic: true)
        for (name, group) in chart.series {
            let markers = try group.descendants("circle").map { try ChartMarker($0, series: name) }
            #expect(markers.map(\.x) == [8, 16, 32], "\(name)")
            for (marker, point) in zip(markers, points.rows) {
                let median = try point.row(name).number("median") * 1000
                #expect(
                    abs(marker.y - median) <= SVGChartFile.rounding(of: median), "\(name): \(marker.y) for \(median)")
                // Drawn where the logarithmic axis puts the JSON's median.
                #expect(
                    abs(yAxis.pixel(of: median) - marker.cy) < 0.01,
                    "\(name) at tile \(marker.x): drawn at \(marker.cy), \(median) ms is at \(yAxis.pixel(of: median))")
            }
            // Tiles 8, 16, 32 lie evenly apart on a logarithmic axis (a linear one puts 16 at a third).
            if markers.count == 3 {
                let fraction = (markers[1].cx - markers[0].cx) / (markers[2].cx - markers[0].cx)
                #expect(abs(fraction - 0.5) < 1e-6, "\(name): tile 16 at \(fraction) of the axis")
            }
        }
    }

    /// Each: the sweep's list, the JSON key of a point's value, the x axis' label, whether it is logarithmic,
    /// and the values as the markers name them.
    static let threadAxes: [([String], String, String, Bool, [Double])] = [
        (["--workers", "1,2,4", "--strategies", "gcd"], "workers", "workers", false, [1, 2, 4]),
        (
            ["--tile", "8,16,32", "--strategies", "thread"], "tile", "tile side (pixels) (log scale)", true,
            [8, 16, 32]
        ),
        (
            ["--tile", "16", "--tile-wait", "0,1,3", "--strategies", "gcd"], "tile_wait", "wait per tile (ms)", false,
            [0, 1, 3]
        ),
        (
            ["--color", "histogram", "--merge-batch", "1,32,1024", "--strategies", "thread"], "merge_batch",
            "escape values per merge batch (log scale)", true, [1, 32, 1024]
        ),
    ]

    @Test("sweep --threads-chart: each strategy's peak threads at each point, as in the JSON", arguments: threadAxes)
    func sweepThreads(list: [String], key: String, xLabel: String, logarithmic: Bool, xs: [Double]) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["sweep", "--size", "32", "--iterations", "64", "--warmup", "0", "--runs", "1"] + list + [
                "--threads-chart", "t.svg", "--json", "s.json",
            ], in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        let points = try SweepPoints(jsonAt: folder + "/s.json", key: key)
        #expect(points.rows.count == xs.count)
        let chart = try SVGChartFile(path: folder + "/t.svg")
        #expect(chart.title == "mandel sweep: the process's peak threads")
        #expect(chart.heading == chart.title)
        #expect(chart.subtitle.hasPrefix("32x32, 64 iterations, "), "\(chart.subtitle)")
        #expect(chart.subtitle.hasSuffix("; instruments not counted"), "\(chart.subtitle)")
        #expect(chart.xLabel == xLabel)
        #expect(chart.yLabel == "peak threads")
        let names = try #require(points.rows.first).names
        #expect(names.count >= 2 && names.first?.hasPrefix("serial") == true, "\(names)")
        #expect(chart.series.map(\.name) == names)
        let yAxis = try chart.yAxis(logarithmic: false)
        for (name, group) in chart.series {
            let markers = try group.descendants("circle").map { try ChartMarker($0, series: name) }
            #expect(markers.map(\.x) == xs, "\(name)")
            for (marker, point) in zip(markers, points.rows) {
                let peak = Double(try point.row(name).integer("peak_threads"))
                #expect(peak >= 1 && marker.y == peak, "\(name) at \(marker.x): \(marker.y), the JSON says \(peak)")
                #expect(abs(yAxis.value(at: marker.cy) - peak) < 0.01, "\(name) at \(marker.x): drawn at \(marker.cy)")
            }
            // Where the middle value lies along the axis: halfway on a logarithmic one (each list is geometric
            // there), at its share of the range on a linear one.
            if markers.count == 3 {
                let fraction = (markers[1].cx - markers[0].cx) / (markers[2].cx - markers[0].cx)
                let expected = logarithmic ? 0.5 : (xs[1] - xs[0]) / (xs[2] - xs[0])
                #expect(abs(fraction - expected) < 1e-6, "\(name): \(xs[1]) at \(fraction) of the axis")
            }
        }
    }

    /// A sweep's values may be given in any order: each line runs along its axis, from the least value
    /// to the greatest, whatever the order of the list (the JSON's points keep the list's order).
    @Test("a sweep over values given out of order draws each line along the axis, its markers at the JSON's values")
    func sweepUnorderedList() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "sweep", "--size", "32", "--iterations", "64", "--warmup", "0", "--runs", "1", "--workers", "4,1,2",
                "--strategies", "gcd", "--threads-chart", "t.svg", "--chart", "c.svg", "--json", "s.json",
            ], in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        let points = try SweepPoints(jsonAt: folder + "/s.json", key: "workers")
        #expect(points.values == ["4", "1", "2"])
        for file in ["t.svg", "c.svg"] {
            let chart = try SVGChartFile(path: folder + "/" + file)
            #expect(chart.series.count == 2, "\(file)")
            for (name, group) in chart.series {
                let line = try #require(group.descendants("polyline").first, "\(file) \(name): no line").polylinePoints
                #expect(line.count == 3, "\(file) \(name)")
                #expect(zip(line, line.dropFirst()).allSatisfy { $0.x < $1.x }, "\(file) \(name): \(line)")
                if file == "t.svg" {
                    let markers = try group.descendants("circle").map { try ChartMarker($0, series: name) }
                    #expect(markers.map(\.x) == [1, 2, 4], "\(name)")
                    for marker in markers {
                        let index = try #require(points.values.firstIndex { Double($0) == marker.x }, "\(marker.x)")
                        let point = points.rows[index]
                        #expect(
                            marker.y == Double(try point.row(name).integer("peak_threads")), "\(name) at \(marker.x)")
                    }
                }
            }
        }
    }

    @Test("sweep --preview prints when each strategy's preview reached the main queue, per point, in ms")
    func sweepPreviewMatrix() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "sweep", "--size", "32", "--iterations", "64", "--workers", "1,2", "--strategies", "thread,gcd",
                "--preview", "4", "--warmup", "0", "--runs", "1", "--json", "s.json",
            ], in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        let points = try SweepPoints(jsonAt: folder + "/s.json", key: "workers")
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let caption = try #require(
            lines.firstIndex(of: "ms until the preview was delivered on the main queue (median)"),
            "\(result.standardOutput)")
        let start = try #require(lines[..<caption].lastIndex(of: ""), "\(result.standardOutput)") + 1
        let cells = lines[start..<caption].map { $0.split(separator: " ").map(String.init) }
        #expect(cells.first == ["strategy", "1", "workers", "2", "workers"], "\(lines[start])")
        let names = try #require(points.rows.first).names
        #expect(names == ["serial", "thread", "gcd"])
        #expect(cells.dropFirst().map { $0.first ?? "" } == names)
        for row in cells.dropFirst() {
            let name = row.first ?? ""
            #expect(row.count == 1 + points.rows.count, "\(row)")
            for (cell, point) in zip(row.dropFirst(), points.rows) {
                let shown = try #require(Double(cell), "\(name): \(cell)")
                let measured = try point.row(name)
                let first = try measured.number("first_picture_seconds")
                let full = try measured.number("median") * 1000
                #expect(shown > 0 && shown <= full + 0.005, "\(name): \(cell) ms, the full picture \(full) ms")
                #expect(cell == NumberFormat.milliseconds(first), "\(name): \(cell), the JSON says \(first) s")
            }
        }
    }

    @Test("a sweep's chart leaves out a point that has no result for a strategy, and one without a thread count")
    func missingResultsAreSkipped() throws {
        func result(_ strategy: String, seconds: Double, peak: Int?) -> StrategyResult {
            StrategyResult(
                strategy: strategy, wallSeconds: [seconds], userSeconds: seconds, systemSeconds: 0, workers: 2,
                threadsUsed: 2, imbalance: 1, checksum: 1, pixels: 64, iterations: 64,
                behaviour: StrategyBehaviour(peakThreads: peak))
        }
        let points = [
            SweepPoint(
                value: 8,
                comparison: StrategyComparison(
                    baselineName: "serial",
                    results: [result("serial", seconds: 0.5, peak: 3), result("gcd", seconds: 0.125, peak: 5)])),
            SweepPoint(
                value: 16,
                comparison: StrategyComparison(
                    baselineName: "serial",
                    results: [result("serial", seconds: 0.25, peak: nil)])),
            SweepPoint(
                value: 32,
                comparison: StrategyComparison(
                    baselineName: "serial",
                    results: [result("serial", seconds: 0.25, peak: 4), result("gcd", seconds: 0.0625, peak: 6)])),
        ]
        let job = RenderJob(size: ImageSize(width: 8, height: 8), iterations: 64, colorScheme: .gray, workers: 2)
        let wall = try SVGChartFile(data: Data(Charts.sweep(points, axis: .tile, job: job).utf8))
        let threads = try SVGChartFile(data: Data(Charts.sweepThreads(points, axis: .tile, job: job).utf8))
        func markers(_ chart: SVGChartFile) throws -> [String: [String]] {
            try Dictionary(
                uniqueKeysWithValues: chart.series.map { name, group in
                    (name, try group.descendants("circle").map { try ChartMarker($0, series: name).text })
                })
        }
        #expect(
            try markers(wall) == [
                "serial": ["500 at 8", "250 at 16", "250 at 32"], "gcd": ["125 at 8", "62.5 at 32"],
            ],
            "gcd has no result at 16")
        #expect(
            try markers(threads) == ["serial": ["3 at 8", "4 at 32"], "gcd": ["5 at 8", "6 at 32"]],
            "serial has no thread count at 16, gcd no result")
    }
}
