import MandelbrotCore
import Testing

/// How many tiles of `plan` cover each pixel.
func coverage(of plan: WorkPlan) -> [Int] {
    var cover = [Int](repeating: 0, count: plan.size.pixelCount)
    for index in 0..<plan.tileCount {
        let tile = plan.rect(of: index)
        for y in tile.y..<tile.maxY {
            for x in tile.x..<tile.maxX { cover[y * plan.size.width + x] += 1 }
        }
    }
    return cover
}

@Suite("WorkPlan")
struct WorkPlanTests {
    @Test(
        "every split covers every pixel exactly once, whole or in bands", arguments: WorkSplit.allCases,
        [1, 2, 3, 7, 64])
    func coversOnce(split: WorkSplit, workers: Int) {
        for size in [
            ImageSize(width: 1, height: 1), ImageSize(width: 130, height: 67), ImageSize(width: 5, height: 200),
        ] {
            for bandHeight in [nil, 1, 16, 17, 1000] as [Int?] {
                let plan = WorkPlan(
                    size: size, split: split, workers: workers, tileSize: TileSize(width: 32, height: 16),
                    bandHeight: bandHeight)
                #expect(
                    coverage(of: plan).allSatisfy { $0 == 1 },
                    "\(split) \(size) bands of \(bandHeight.map(String.init) ?? "all")")
                // Tiles are numbered band after band, each inside its band's rows.
                for index in 0..<plan.tileCount {
                    let rows = plan.rows(of: plan.band(of: index))
                    #expect(rows.contains(plan.rect(of: index).y) && plan.rect(of: index).maxY <= rows.upperBound)
                }
            }
        }
    }

    @Test("static plans give each tile to exactly one worker, band after band")
    func staticAssignments() {
        for split in [WorkSplit.bands, .rows] {
            for bandHeight in [nil, 4] as [Int?] {
                let plan = WorkPlan(
                    size: ImageSize(width: 10, height: 9), split: split, workers: 4, tileSize: .standardTile,
                    bandHeight: bandHeight)
                let assigned = (0..<plan.workerCount).flatMap { Array(plan.tiles(of: $0)) }.sorted()
                #expect(assigned == Array(0..<plan.tileCount))
                #expect(plan.workerCount == 4)
                for worker in 0..<plan.workerCount {
                    let bands = plan.tiles(of: worker).map(plan.band(of:))
                    #expect(bands == bands.sorted(), "a worker's tiles go band after band")
                }
            }
        }
    }

    @Test("bands are contiguous and rows are dealt out in turn")
    func shapes() {
        let bands = WorkPlan(size: ImageSize(width: 8, height: 10), split: .bands, workers: 3, tileSize: .standardTile)
        #expect((0..<bands.tileCount).map { bands.rect(of: $0).height } == [3, 3, 4])
        let rows = WorkPlan(size: ImageSize(width: 8, height: 7), split: .rows, workers: 3, tileSize: .standardTile)
        #expect((0..<3).map { Array(rows.tiles(of: $0)) } == [[0, 3, 6], [1, 4], [2, 5]])
    }

    @Test("a plan never keeps more workers busy than it has tiles")
    func moreWorkersThanTiles() {
        let plan = WorkPlan(
            size: ImageSize(width: 100, height: 100), split: .tiles, workers: 50,
            tileSize: TileSize(width: 64, height: 64))
        #expect(plan.tileCount == 4)
        #expect(plan.workerCount == 4)
        #expect(plan.isDynamic)
        let bands = WorkPlan(size: ImageSize(width: 3, height: 2), split: .bands, workers: 8, tileSize: .standardTile)
        #expect(bands.workerCount == 2)
    }

    @Test("a plan of a huge picture costs nothing: tiles are computed, not stored")
    func hugePicture() {
        let plan = WorkPlan(
            size: ImageSize(width: 2_147_483_647, height: 2_147_483_647), split: .tiles, workers: 2,
            tileSize: TileSize(width: 64, height: 64), bandHeight: 64)
        #expect(plan.tileCount == 33_554_432 * 33_554_432)
        #expect(
            plan.rect(of: plan.tileCount - 1) == PixelRect(x: 2_147_483_584, y: 2_147_483_584, width: 63, height: 63))
    }
}
