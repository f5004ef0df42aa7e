import MandelbrotCore
import Testing

@Suite("Every strategy matches serial")
struct IdenticalOutputTests {
    static let sizes = [
        ImageSize(width: 1, height: 1),
        ImageSize(width: 97, height: 61),  // not divisible by any tile size below
        ImageSize(width: 128, height: 64),
    ]

    @Test(
        "same pixels for every split, worker count and tile size", arguments: concurrentStrategyNames,
        WorkSplit.allCases)
    func identical(strategyName: String, split: WorkSplit) async throws {
        // A helper process costs a start (16 workers: 16 starts a render): process takes one worker
        // and an uneven three here; ProcessStrategyTests runs it with two, three and eight.
        let workerCounts = strategyName == "process" ? [1, 3] : [1, 2, 3, 16]
        for size in Self.sizes {
            for workers in workerCounts {
                for tile in [
                    TileSize(width: 1, height: 1), TileSize(width: 7, height: 5), TileSize(width: 32, height: 32),
                ]
                where tile.width <= size.width && tile.height <= size.height && (split == .tiles || tile.width == 32) {
                    // Black and white packs eight pixels to a byte: tiles 7 wide share bytes with their neighbours.
                    for color in [ColorScheme.smooth, .bw] {
                        let job = RenderJob(
                            size: size, region: .view(Viewport(centerReal: -0.6, centerImaginary: 0.1, zoom: 1.3)),
                            iterations: 120, colorScheme: color, split: split, tileSize: tile, workers: workers)
                        let (expected, serialReport) = try await render(job, with: SerialStrategy())
                        let (canvas, report) = try await render(job, with: strategy(named: strategyName))
                        #expect(
                            canvas.checksum == expected.checksum,
                            "\(strategyName) \(split) \(size) workers \(workers) tile \(tile) \(color)")
                        #expect(report.totalIterations == serialReport.totalIterations)
                    }
                }
            }
        }
    }

    @Test(
        "a deep view (perturbation, one shared orbit and table) has the same pixels", arguments: concurrentStrategyNames
    )
    func identicalDeep(strategyName: String) async throws {
        // Helper processes get a recipe without the reference orbit; render refuses them for a deep view.
        guard strategyName != "process" else { return }
        let view = try #require(
            DeepView(
                centerReal: "-1.759817130804847813610825010561798238243999999999999999999800",
                centerImaginary: "-0.012593310799749865383746631843264858450340000000000000000000",
                zoom: "1.333333333333333333333333333333333333333e14"))
        for color in [ColorScheme.smooth, .bw, .histogram] {
            var job = RenderJob(
                size: ImageSize(width: 57, height: 41), region: .view(view.approximateViewport), iterations: 4036,
                colorScheme: color, tileSize: TileSize(width: 16, height: 8), workers: 2)
            job.deep = view
            let (expected, serialReport) = try await render(job, with: SerialStrategy())
            let (canvas, report) = try await render(job, with: strategy(named: strategyName))
            #expect(canvas.checksum == expected.checksum, "\(strategyName) \(color)")
            #expect(report.totalIterations == serialReport.totalIterations)
            #expect(report.deepPhases != nil)
        }
    }

    @Test(
        "every tile is recorded once, by a worker, with the iterations its pixels took",
        arguments: concurrentStrategyNames)
    func records(strategyName: String) async throws {
        let job = RenderJob(
            size: ImageSize(width: 200, height: 150), iterations: 200, colorScheme: .bw, split: .tiles,
            tileSize: TileSize(width: 16, height: 16), workers: 2, kernel: .scalar)
        let (_, report) = try await render(job, with: strategy(named: strategyName))
        #expect(report.tiles.count == 13 * 10)
        #expect(Set(report.tiles.map(\.rect)).count == 130, "each tile recorded once")
        #expect(report.tiles.allSatisfy { $0.isFinished && $0.end >= $0.start && $0.start >= 0 })
        #expect(report.tiles.allSatisfy { $0.end <= report.wallSeconds })
        // Each record's iterations are its own pixels' counts, computed here from the definition.
        let grid = SampleGrid.of(job)
        for tile in report.tiles.prefix(20) {
            var expected: UInt64 = 0
            for y in tile.rect.y..<tile.rect.maxY {
                for x in tile.rect.x..<tile.rect.maxX {
                    expected += UInt64(
                        EscapeTime.count(real: grid.realParts[x], imaginary: grid.imaginaryParts[y], limit: 200))
                }
            }
            #expect(tile.iterations == expected, "tile \(tile.rect)")
        }
        // A worker is busy at most for the wall time: its tiles never overlap.
        #expect(report.workerBusySeconds.allSatisfy { $0 <= report.wallSeconds })
    }

    @Test("the manual threads use exactly the planned workers")
    func threadCount() async throws {
        let job = RenderJob(size: ImageSize(width: 120, height: 90), iterations: 64, split: .rows, workers: 3)
        let (_, report) = try await render(job, with: strategy(named: "thread"))
        #expect(report.threadsUsed == 3)
        #expect(report.plannedWorkers == 3)
    }
}
