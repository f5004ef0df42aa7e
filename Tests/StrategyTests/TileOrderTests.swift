import Deadline
import MandelbrotCore
import Testing

@Suite("Tile order")
struct TileOrderTests {
    static let size = ImageSize(width: 160, height: 120)
    static let tile = TileSize(width: 16, height: 16)

    static func job(workers: Int) -> RenderJob {
        RenderJob(
            size: size, iterations: 200, colorScheme: .gray, split: .tiles, tileSize: tile, workers: workers)
    }

    /// The squared distance of a tile's centre from the picture's, computed here from the geometry.
    static func distance(_ rect: PixelRect) -> Double {
        let dx = Double(rect.x) + Double(rect.width) / 2 - Double(size.width) / 2
        let dy = Double(rect.y) + Double(rect.height) / 2 - Double(size.height) / 2
        return dx * dx + dy * dy
    }

    /// The tiles in the order they started, from the records.
    static func started(_ report: RenderReport) -> [PixelRect] {
        report.tiles.sorted { $0.start < $1.start }.map(\.rect)
    }

    /// The fraction of pairs of tiles that started nearer-first (1: centre first; about 0.5: no relation).
    static func centreFirstness(_ rects: [PixelRect]) -> Double {
        var ordered = 0
        var pairs = 0
        for i in rects.indices {
            for j in rects.indices where j > i && distance(rects[i]) != distance(rects[j]) {
                pairs += 1
                if distance(rects[i]) < distance(rects[j]) { ordered += 1 }
            }
        }
        return Double(ordered) / Double(pairs)
    }

    static func render(
        _ job: RenderJob, with strategy: any RenderStrategy, order: TileOrder
    ) async throws -> (
        PixelBuffer, RenderReport
    ) {
        let render = try PictureRender(job: job)
        let report = try await withDeadline(waitingFor: "\(strategy.name) rendering in \(order) order") {
            try await render.run(strategy, settings: RunSettings(order: order))
        }
        return (render.canvas!, report)
    }

    /// Each tile's priority class among `classes`, computed here: ranks by distance, ties in row order.
    static func priorityClasses(_ classes: Int) -> [PixelRect: Int] {
        let plan = job(workers: 1).plan()
        let rects = (0..<plan.tileCount).map { plan.rect(of: $0) }
        let ranked = rects.indices.sorted { (distance(rects[$0]), $0) < (distance(rects[$1]), $1) }
        var result: [PixelRect: Int] = [:]
        for (rank, index) in ranked.enumerated() { result[rects[index]] = rank * classes / rects.count }
        return result
    }

    @Test(
        "every strategy draws the same pixels centre first, and renders every tile once",
        arguments: allStrategies.map(\.name))
    func identical(strategyName: String) async throws {
        for workers in [1, 3] {
            let job = Self.job(workers: workers)
            let (expected, _) = try await Self.render(job, with: SerialStrategy(), order: .rows)
            let (canvas, report) = try await Self.render(job, with: strategy(named: strategyName), order: .centre)
            #expect(canvas.checksum == expected.checksum, "\(strategyName) workers \(workers)")
            #expect(report.tiles.count == job.plan().tileCount && report.tiles.allSatisfy(\.isFinished))
            #expect(Set(report.tiles.map(\.rect)).count == report.tiles.count, "each tile once")
        }
    }

    @Test(
        "without a priority facility, tiles start centre first; in row order they start row by row",
        arguments: allStrategies.filter { $0.priorityFacility == nil }.map(\.name))
    func plainOrder(strategyName: String) async throws {
        let (_, rows) = try await Self.render(Self.job(workers: 1), with: strategy(named: strategyName), order: .rows)
        let plan = Self.job(workers: 1).plan()
        #expect(Self.started(rows) == (0..<plan.tileCount).map { plan.rect(of: $0) })
        let (_, one) = try await Self.render(Self.job(workers: 1), with: strategy(named: strategyName), order: .centre)
        #expect(Self.centreFirstness(Self.started(one)) == 1, "one worker takes the tiles exactly centre first")
        let (_, two) = try await Self.render(Self.job(workers: 2), with: strategy(named: strategyName), order: .centre)
        // Two workers take tiles in order from one counter; their start times may cross by a little.
        #expect(Self.centreFirstness(Self.started(two)) > 0.9)
    }

    @Test("Operation.queuePriority orders the queue: tiles queued in row order start by priority class")
    func operationPriorities() async throws {
        let classes = Self.priorityClasses(5)
        let (_, report) = try await Self.render(
            Self.job(workers: 1), with: strategy(named: "operation"), order: .centre)
        // The queue may start the first operation before the rest are queued: from the second on,
        // every tile's class is at least the class of the tile before it.
        let started = Self.started(report).dropFirst().map { classes[$0]! }
        #expect(zip(started, started.dropFirst()).allSatisfy { $0 <= $1 }, "\(started)")
        #expect(Set(started).count == 5)
    }

    @Test("a report says when the central quarter was done, for a picture rendered whole")
    func centreDone() async throws {
        let (_, report) = try await Self.render(Self.job(workers: 2), with: strategy(named: "thread"), order: .rows)
        let quarter = PixelRect(x: 40, y: 30, width: 80, height: 60)
        let expected = report.tiles.filter { $0.rect.intersects(quarter) }.map(\.end).max()!
        #expect(report.centreDoneSeconds == expected)
        #expect(report.tiles.filter { $0.rect.intersects(quarter) }.count == 6 * 5)
    }

    @Test("the central quarter's tiles share a pixel with it: the ring that only touches its edges is not waited for")
    func centreQuarterEdges() async throws {
        // 128×128 in tiles of 32: the quarter is 32..<96 each way, exactly the 2×2 tiles inside it;
        // the 12 tiles around them touch its edges and corners, and share no pixel with it.
        let job = RenderJob(
            size: ImageSize(width: 128, height: 128), iterations: 200, colorScheme: .gray, split: .tiles,
            tileSize: TileSize(width: 32, height: 32), workers: 2)
        let (_, report) = try await Self.render(job, with: strategy(named: "thread"), order: .rows)
        let inner = report.tiles.filter { (32..<96).contains($0.rect.x) && (32..<96).contains($0.rect.y) }
        #expect(inner.count == 4)
        // In row order the bottom row of tiles ends after the inner ones: a quarter that took in the
        // ring would be done only with the whole picture.
        #expect(report.centreDoneSeconds == inner.map(\.end).max()!)
        #expect(report.centreDoneSeconds! < report.tiles.map(\.end).max()!)
        let quarter = PixelRect(x: 32, y: 32, width: 64, height: 64)
        for (x, y) in [(0, 0), (32, 0), (96, 32), (96, 96), (0, 96), (64, 96)] {
            #expect(!PixelRect(x: x, y: y, width: 32, height: 32).intersects(quarter), "the tile at \(x),\(y)")
        }
        #expect(PixelRect(x: 95, y: 95, width: 32, height: 32).intersects(quarter), "one pixel in common")
        #expect(PixelRect(x: 0, y: 0, width: 33, height: 33).intersects(quarter), "one pixel in common")
    }
}
