import Deadline
import Foundation
import MandelbrotCore
import StrategyCatalog
import Testing

@testable import WorkVisuals

/// Renders with the thread strategy and returns the canvas, counts and report.
func renderWithThreads(_ job: RenderJob) async throws -> (PixelBuffer, IterationCounts, RenderReport) {
    let render = try PictureRender(job: job, keepsCounts: true)
    let report = try await withDeadline(waitingFor: "thread rendering \(job.size.width)x\(job.size.height)") {
        try await render.run(StrategyCatalog.strategy(named: "thread")!)
    }
    return (render.canvas!, render.counts!, report)
}

/// The trace of `report` as one piece of JSON, written in small chunks.
func traceJSON(_ report: RenderReport, title: String) throws -> Data {
    var bytes: [UInt8] = []
    var chunks = 0
    try ChromeTrace.write(report, title: title) { chunk in
        bytes += chunk
        chunks += 1
    }
    return Data(bytes)
}

@Suite("Chrome trace")
struct ChromeTraceTests {
    @Test("one track per worker, slices that never overlap within a track, every tile exactly once")
    func trace() async throws {
        let job = RenderJob(
            size: ImageSize(width: 150, height: 90), iterations: 300, split: .tiles,
            tileSize: TileSize(width: 16, height: 16), workers: 3)
        let (_, _, report) = try await renderWithThreads(job)
        let title = "a \"quoted\"\ntitle\\ with a tab\t, a \u{1} and a/slash é"
        let object = try #require(
            try JSONSerialization.jsonObject(with: traceJSON(report, title: title)) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        let process = try #require(events.first { $0["name"] as? String == "process_name" })
        #expect((process["args"] as? [String: Any])?["name"] as? String == title, "the title, every character kept")
        let slices = events.filter { $0["cat"] as? String == "tile" }
        #expect(slices.count == report.tiles.count)
        let tiles = slices.map { ($0["args"] as! [String: Any])["tile"] as! Int }
        #expect(tiles.sorted() == Array(report.tiles.indices), "every tile exactly once")
        for track in Set(slices.map { $0["tid"] as! Int }) {
            let spans = slices.filter { $0["tid"] as! Int == track }
                .map { ($0["ts"] as! Double, ($0["ts"] as! Double) + ($0["dur"] as! Double)) }
                .sorted { $0.0 < $1.0 }
            for (earlier, later) in zip(spans, spans.dropFirst()) {
                #expect(earlier.1 <= later.0 + 0.001, "slices overlap on track \(track)")
            }
        }
        let args = try #require(slices.first?["args"] as? [String: Any])
        #expect(args["rect"] is String && args["pixels"] is Int && args["iterations"] is Int)
        #expect(events.contains { $0["name"] as? String == "completion on the main queue" })
        let names = events.filter { $0["name"] as? String == "thread_name" }.compactMap {
            ($0["args"] as? [String: Any])?["name"] as? String
        }
        #expect(names.contains("main queue") && names.contains("worker 0"))
    }

    @Test("a counter track has a value where it changes and its last one, each at its own time, to the end")
    func counterTrack() async throws {
        let job = RenderJob(
            size: ImageSize(width: 32, height: 16), iterations: 50, split: .tiles,
            tileSize: TileSize(width: 16, height: 16), workers: 1)
        let (_, _, report) = try await renderWithThreads(job)
        // Sampled every 10 ms from 2 ms before the render: the last two values repeat the one before them.
        let threads = ChromeTrace.Counter(
            name: "threads", firstSeconds: -0.002, intervalSeconds: 0.01, values: [3, 3, 5, 5, 5])
        var bytes: [UInt8] = []
        try ChromeTrace.write(report, title: "counters", counters: [threads]) { bytes += $0 }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        let points = events.filter { $0["ph"] as? String == "C" }.compactMap { event -> (Double, Double)? in
            guard let time = event["ts"] as? Double, let args = event["args"] as? [String: Any],
                let value = args["value"] as? Double
            else { return nil }
            return (time, value)
        }
        // The first value, the change at 18 ms, and the last sample (38 ms), which ends the track.
        let expected: [(Double, Double)] = [(-2000, 3), (18000, 5), (38000, 5)]
        #expect(points.count == expected.count, "\(points)")
        for (point, wanted) in zip(points, expected) {
            #expect(abs(point.0 - wanted.0) < 0.01 && point.1 == wanted.1, "\(points)")
        }
    }
}

@Suite("Work maps")
struct WorkMapTests {
    @Test("the ownership map tints each band by its own worker and adds a legend below the picture")
    func ownership() async throws {
        let job = RenderJob(
            size: ImageSize(width: 64, height: 40), iterations: 100, colorScheme: .bw, split: .bands, workers: 2)
        let (canvas, _, report) = try await renderWithThreads(job)
        let map = OwnershipMap.draw(canvas: canvas, report: report, title: "thread, bands")
        #expect(map.height > 40)
        #expect(map.width >= 64)
        let top = map[32, 5]
        let bottom = map[32, 35]
        #expect(top != bottom, "the two bands have different workers' tints")
        let legend = (40..<map.height).flatMap { y in (0..<map.width).map { map[$0, y] } }
        #expect(legend.contains(RGB(0, 0, 0)), "the legend has text")
    }

    /// Whether `text` is drawn in black at (x, y) at scale 1: each character's cell holds its glyph's
    /// ink and nothing else (a character the font lacks, blank).
    static func shows(_ picture: RGBPicture, _ text: String, x: Int, y: Int) -> Bool {
        for (index, character) in text.uppercased().enumerated() {
            let rows = BitmapFont.glyphs[character] ?? BitmapFont.glyphs[" "]!
            let left = x + index * (BitmapFont.glyphWidth + 1)
            for (row, line) in rows.enumerated() {
                for (column, ink) in line.enumerated() {
                    let black = picture[left + column, y + row] == RGB(0, 0, 0)
                    if black != (ink == "#") { return false }
                }
            }
        }
        return true
    }

    @Test(
        "the ownership map: each tile in its worker's tint and outline, a legend of each worker's tiles, time and share"
    )
    func ownershipTintsAndLegend() async throws {
        let job = RenderJob(
            size: ImageSize(width: 96, height: 48), iterations: 100, colorScheme: .bw,
            tileSize: TileSize(width: 16, height: 16), workers: 3)
        let (canvas, _, rendered) = try await renderWithThreads(job)
        // The tiles as rendered, but the workers and times set: uneven tiles and shares, none of them all.
        let tiles = rendered.tiles.enumerated().map { index, tile in
            TileRecord(
                rect: tile.rect, worker: index % 5 == 0 ? 2 : index % 2, start: Double(index) * 0.01,
                end: Double(index) * 0.01 + 0.001 * Double(index + 1), iterations: tile.iterations)
        }
        let report = RenderReport(
            strategy: "thread", wallSeconds: 0.2, cpu: rendered.cpu, tiles: tiles, plannedWorkers: 3)
        let map = OwnershipMap.draw(canvas: canvas, report: report, title: "thread, tiles 16x16")
        // Each tile: its worker's colour over the faint picture inside, half that colour on its top and left edge.
        var tileCounts = [Int](repeating: 0, count: 3)
        var busy = [Double](repeating: 0, count: 3)
        for tile in report.tiles {
            let worker = try #require(tile.worker)
            tileCounts[worker] += 1
            busy[worker] += tile.end - tile.start
            let color = WorkerPalette.color(for: worker)
            let (x, y) = (tile.rect.x + 5, tile.rect.y + 7)
            let faint: UInt8 =
                canvas.withBytes { $0[y * canvas.bytesPerRow + x / 8] & (0x80 >> UInt8(x % 8)) != 0 } ? 140 : 255
            // Half and half, rounded half up, written out here: the map's own blend would agree with itself.
            func half(_ top: UInt8) -> UInt8 { UInt8((Int(top) + Int(faint) + 1) / 2) }
            #expect(map[x, y] == RGB(half(color.red), half(color.green), half(color.blue)), "tile at \(tile.rect)")
            #expect(map[tile.rect.x, y] == RGB(color.red / 2, color.green / 2, color.blue / 2), "tile at \(tile.rect)")
        }
        #expect(tileCounts == [7, 7, 4])
        // The legend below the picture: the title, then per worker a swatch and its line.
        let lineHeight = BitmapFont.glyphHeight + 3
        let top = 48 + 4
        let title = Self.shows(map, "thread, tiles 16x16", x: 4, y: top)
        #expect(title, "the title is not drawn")
        let total = busy.reduce(0, +)
        for worker in 0..<3 {
            let y = top + lineHeight * (worker + 1)
            let line = String(
                format: "worker %d: %d tiles, %.3f s busy (%.0f%%)", worker, tileCounts[worker], busy[worker],
                busy[worker] / total * 100)
            let shown = Self.shows(map, line, x: 4 + lineHeight, y: y)
            #expect(shown, "worker \(worker)'s line is not \(line)")
            #expect(map[4, y] == WorkerPalette.color(for: worker), "worker \(worker)'s swatch")
        }
    }

    @Test("the cost map's every pixel: its iterations on a log scale to the most, 0 where the kernel skipped it")
    func costLevels() async throws {
        let job = RenderJob(size: ImageSize(width: 60, height: 40), iterations: 300, colorScheme: .gray, workers: 2)
        let (_, counts, _) = try await renderWithThreads(job)
        let grid = SampleGrid.of(job)
        let map = CostMap.draw(counts: counts, grid: grid, kernel: .simd)
        var costs: [[UInt32]] = []
        for y in 0..<40 {
            costs.append(
                (0..<60).map { x in
                    let skipped = IterationKernel.simd.skipsIteration(
                        real: grid.realParts[x], imaginary: grid.imaginaryParts[y])
                    return skipped ? 0 : counts[x, y]
                })
        }
        let most = Double(costs.joined().max()!)
        #expect(most > 100, "the view's dearest pixel took \(most) iterations")
        var levels = Set<UInt8>()
        for y in 0..<40 {
            for x in 0..<60 {
                let level = UInt8((log1p(Double(costs[y][x])) / log1p(most) * 255).rounded())
                levels.insert(level)
                #expect(map[x, y] == RGB(level, level, level), "(\(x), \(y)): \(costs[y][x]) iterations")
            }
        }
        // Many levels between black and white: a scale, not a threshold.
        #expect(levels.count > 20 && levels.contains(0) && levels.contains(255))
        // A Julia set has no shortcut: the same counts, none skipped.
        let julia = CostMap.draw(
            counts: counts, grid: grid, kernel: .simd, julia: JuliaConstant(real: -0.8, imaginary: 0.156))
        let centre = Double(counts[30, 20])
        let most2 = Double((0..<40).flatMap { y in (0..<60).map { counts[$0, y] } }.max()!)
        let level = UInt8((log1p(centre) / log1p(most2) * 255).rounded())
        #expect(julia[30, 20] == RGB(level, level, level) && level > 0)
    }

    /// The `count` characters drawn in the bitmap font from (x, y) at `scale` in `ink`, read back
    /// glyph by glyph (capitals, as the font draws them); `?` where no glyph matches.
    static func readText(_ picture: RGBPicture, x: Int, y: Int, scale: Int, count: Int, ink: RGB) -> String {
        String(
            (0..<count).map { index -> Character in
                let left = x + index * (BitmapFont.glyphWidth + 1) * scale
                let cells = (0..<BitmapFont.glyphHeight).map { row in
                    String(
                        (0..<BitmapFont.glyphWidth).map { column in
                            picture[left + column * scale, y + row * scale] == ink ? "#" : "."
                        })
                }
                return BitmapFont.glyphs.first { $0.value == cells }?.key ?? "?"
            })
    }

    @Test("the ownership map's legend reads back: each worker's tiles, busy time and share, the shares adding to 100%")
    func ownershipLegend() async throws {
        // Bands on 3 workers: the set's middle band is the busiest, none has all the time.
        let job = RenderJob(
            size: ImageSize(width: 96, height: 60), iterations: 2000, colorScheme: .gray, split: .bands, workers: 3)
        let (canvas, _, report) = try await renderWithThreads(job)
        let map = OwnershipMap.draw(canvas: canvas, report: report, title: "thread, bands")
        // Below 600 pixels wide the legend is drawn at scale 1: a line every 8 pixels, the text
        // after a swatch of the line's height.
        let (scale, lineHeight, top) = (1, BitmapFont.glyphHeight + 3, 60 + 4)
        #expect(
            Self.readText(map, x: 4, y: top, scale: scale, count: 13, ink: RGB(0, 0, 0)) == "THREAD, BANDS")
        var shares = 0
        var tiles = 0
        for worker in 0..<3 {
            let busy = report.workerBusySeconds[worker]
            let line = Self.readText(
                map, x: 4 + lineHeight, y: top + lineHeight * (worker + 1), scale: scale, count: 40, ink: RGB(0, 0, 0))
            let match = try #require(
                line.firstMatch(of: /^WORKER (\d): (\d+) TILES, (\d+\.\d{3}) S BUSY \((\d+)%\)/), "\(line)")
            #expect(Int(match.1) == worker, "\(line)")
            let owned = report.tiles.filter { $0.worker == worker }.count
            #expect(Int(match.2) == owned, "\(line)")
            #expect(abs(try #require(Double(match.3)) - busy) <= 0.0005, "\(line): busy \(busy) s")
            let share = try #require(Int(match.4))
            let total = report.workerBusySeconds.reduce(0, +)
            // The share of the busy time, to the printed percent, and between 1% and 99% here.
            #expect(abs(Double(share) - busy / total * 100) <= 0.5, "\(line): \(busy) s of \(total) s")
            #expect(share >= 1 && share <= 99, "\(line)")
            shares += share
            tiles += owned
        }
        #expect(shares >= 98 && shares <= 102, "the shares add up to \(shares)%")
        #expect(tiles == report.tiles.count)
    }

    @Test("a Julia set's cost map has every pixel's own count: the Mandelbrot set's cardioid shortcut is not its")
    func juliaCost() async throws {
        let julia = JuliaConstant(real: -0.8, imaginary: 0.156)
        let job = RenderJob(
            size: ImageSize(width: 60, height: 40), iterations: 200, colorScheme: .gray, workers: 2, julia: julia)
        let (_, counts, _) = try await renderWithThreads(job)
        let grid = SampleGrid.of(job)
        let simd = CostMap.draw(counts: counts, grid: grid, kernel: .simd, julia: julia)
        let scalar = CostMap.draw(counts: counts, grid: grid, kernel: .scalar, julia: julia)
        // The centre pixel, −0.5 + 0i, is deep in the Mandelbrot set's cardioid, which the SIMD kernel
        // skips for the Mandelbrot set; the Julia set's orbit from it was iterated, and escaped.
        #expect(IterationKernel.simd.skipsIteration(real: grid.realParts[30], imaginary: grid.imaginaryParts[20]))
        #expect(counts[30, 20] > 0 && counts[30, 20] < 200, "\(counts[30, 20])")
        #expect(simd[30, 20] != RGB(0, 0, 0))
        #expect(simd.bytes == scalar.bytes, "a Julia set's map does not depend on the kernel: nothing is skipped")
    }

    @Test("the cost map is black where nothing was iterated and bright where the most was")
    func cost() async throws {
        let job = RenderJob(size: ImageSize(width: 60, height: 40), iterations: 200, colorScheme: .gray, workers: 2)
        let (_, counts, _) = try await renderWithThreads(job)
        let grid = SampleGrid.of(job)
        let simd = CostMap.draw(counts: counts, grid: grid, kernel: .simd)
        let scalar = CostMap.draw(counts: counts, grid: grid, kernel: .scalar)
        // The centre pixel, −0.5 + 0i, is deep in the cardioid: the SIMD kernel skips it.
        #expect(simd[30, 20] == RGB(0, 0, 0))
        #expect(
            scalar[30, 20] == RGB(255, 255, 255), "the scalar kernel iterates it to the limit, the most of any pixel")
        #expect(counts[30, 20] == 200)
    }
}

@Suite("Chrome trace, streamed")
struct StreamedTraceTests {
    @Test("a trace of tens of thousands of tiles streams in chunks, and a checkpoint that throws stops it")
    func manyTiles() async throws {
        let job = RenderJob(
            size: ImageSize(width: 600, height: 400), iterations: 50, colorScheme: .bw, split: .tiles,
            tileSize: TileSize(width: 2, height: 2), workers: 2)
        let (_, _, report) = try await renderWithThreads(job)
        var chunks: [Int] = []
        var bytes: [UInt8] = []
        try ChromeTrace.write(report, title: "many") { chunk in
            chunks.append(chunk.count)
            bytes += chunk
        }
        #expect(chunks.count > 100 && chunks.dropLast().allSatisfy { $0 <= 80_000 }, "written in chunks of 64 KiB")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect((object["traceEvents"] as? [Any])?.count ?? 0 > 60_000)
        struct Stop: Error {}
        var written = 0
        #expect(throws: Stop.self) {
            try ChromeTrace.write(
                report, title: "stopped", emit: { _ in written += 1 }, checkpoint: { if written == 3 { throw Stop() } })
        }
        #expect(written == 3, "no chunk after the checkpoint threw")
    }
}
