/// The tiles of a render and who renders which: the work split made concrete.
///
/// Every split is expressed as tiles. `bands` makes one tile per worker,
/// `rows` one tile per row, `tiles` a grid. A static plan fixes each
/// worker's tiles in advance; a dynamic plan lets workers take the next
/// free tile from a shared counter.
public struct WorkPlan: Sendable {
    /// Every tile, in the order a dynamic plan hands them out (row-major).
    public let tiles: [PixelRect]
    /// For a static plan, the tile indices of each worker; nil for a dynamic plan.
    public let assignments: [[Int]]?
    /// How many workers the plan keeps busy: never more than it has tiles.
    public let workerCount: Int

    /// Whether workers take tiles from a shared queue rather than a fixed list.
    public var isDynamic: Bool { assignments == nil }

    /// Makes the plan for an image.
    ///
    /// - Parameters:
    ///   - size: The image.
    ///   - split: How to divide it.
    ///   - workers: The worker count asked for; traps unless positive.
    ///   - tileSize: The tile size of the `tiles` split.
    public init(size: ImageSize, split: WorkSplit, workers: Int, tileSize: TileSize) {
        precondition(workers > 0, "a plan needs at least one worker")
        switch split {
        case .bands:
            let bandCount = min(workers, size.height)
            tiles = (0..<bandCount).map { band in
                let top = band * size.height / bandCount
                let bottom = (band + 1) * size.height / bandCount
                return PixelRect(x: 0, y: top, width: size.width, height: bottom - top)
            }
            assignments = (0..<bandCount).map { [$0] }
            workerCount = bandCount
        case .rows:
            let rowWorkers = min(workers, size.height)
            tiles = (0..<size.height).map { PixelRect(x: 0, y: $0, width: size.width, height: 1) }
            assignments = (0..<rowWorkers).map { worker in Array(stride(from: worker, to: size.height, by: rowWorkers)) }
            workerCount = rowWorkers
        case .tiles:
            var grid: [PixelRect] = []
            for top in stride(from: 0, to: size.height, by: tileSize.height) {
                for left in stride(from: 0, to: size.width, by: tileSize.width) {
                    grid.append(PixelRect(
                        x: left, y: top,
                        width: min(tileSize.width, size.width - left),
                        height: min(tileSize.height, size.height - top)))
                }
            }
            tiles = grid
            assignments = nil
            workerCount = min(workers, grid.count)
        }
    }
}
