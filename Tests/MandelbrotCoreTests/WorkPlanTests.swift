import MandelbrotCore
import Testing

/// How many tiles of `plan` cover each pixel.
func coverage(of plan: WorkPlan, size: ImageSize) -> [Int] {
    var cover = [Int](repeating: 0, count: size.pixelCount)
    for tile in plan.tiles {
        for y in tile.y..<tile.maxY {
            for x in tile.x..<tile.maxX { cover[y * size.width + x] += 1 }
        }
    }
    return cover
}

@Suite("WorkPlan")
struct WorkPlanTests {
    @Test("every split covers every pixel exactly once", arguments: WorkSplit.allCases, [1, 2, 3, 7, 64])
    func coversOnce(split: WorkSplit, workers: Int) {
        for size in [ImageSize(width: 1, height: 1), ImageSize(width: 130, height: 67), ImageSize(width: 5, height: 200)] {
            let plan = WorkPlan(size: size, split: split, workers: workers, tileSize: TileSize(width: 32, height: 16))
            #expect(coverage(of: plan, size: size).allSatisfy { $0 == 1 })
        }
    }

    @Test("static plans give each tile to exactly one worker")
    func staticAssignments() {
        for split in [WorkSplit.bands, .rows] {
            let plan = WorkPlan(size: ImageSize(width: 10, height: 9), split: split, workers: 4, tileSize: .standard)
            let assigned = plan.assignments!.flatMap { $0 }.sorted()
            #expect(assigned == Array(plan.tiles.indices))
            #expect(plan.workerCount == 4)
        }
    }

    @Test("bands are contiguous and rows are dealt out in turn")
    func shapes() {
        let bands = WorkPlan(size: ImageSize(width: 8, height: 10), split: .bands, workers: 3, tileSize: .standard)
        #expect(bands.tiles.map(\.height) == [3, 3, 4])
        let rows = WorkPlan(size: ImageSize(width: 8, height: 7), split: .rows, workers: 3, tileSize: .standard)
        #expect(rows.assignments! == [[0, 3, 6], [1, 4], [2, 5]])
    }

    @Test("a plan never keeps more workers busy than it has tiles")
    func moreWorkersThanTiles() {
        let plan = WorkPlan(size: ImageSize(width: 100, height: 100), split: .tiles, workers: 50, tileSize: TileSize(width: 64, height: 64))
        #expect(plan.tiles.count == 4)
        #expect(plan.workerCount == 4)
        #expect(plan.isDynamic)
        let bands = WorkPlan(size: ImageSize(width: 3, height: 2), split: .bands, workers: 8, tileSize: .standard)
        #expect(bands.workerCount == 2)
    }
}
