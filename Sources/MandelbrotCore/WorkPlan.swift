/// The tiles of a render and who renders which: the work split made concrete.
///
/// A picture is cut into horizontal bands of `bandHeight` rows (one band for a
/// picture rendered whole), and each band is divided exactly as a whole
/// picture of the band's size would be: `bands` makes one tile per worker,
/// `rows` one tile per row, `tiles` a grid. The tiles of all bands are
/// numbered in one sequence, band after band.
///
/// A dynamic plan (`tiles`) lets workers take the next free tile, in that
/// order, across the bands: a worker moves on to the next band's tiles while
/// others finish the band before. A static plan (`bands`, `rows`) fixes each
/// worker's tiles in advance; it is run band by band (see ``band(_:)``),
/// because a mechanism may run its workers one after another, and a worker
/// that ran ahead into later bands would wait for ever for a share of an
/// earlier band that no thread is running.
///
/// Nothing is stored per tile: a tile's rectangle is computed from its index.
public struct WorkPlan: Sendable {
    /// The picture.
    public let size: ImageSize
    /// How each band is divided.
    public let split: WorkSplit
    /// Rows per band; the last band may be shorter.
    public let bandHeight: Int
    /// How many bands the picture has.
    public let bandCount: Int
    /// Tiles in all bands.
    public let tileCount: Int
    let fullBand: BandTiling
    let lastBand: BandTiling
    let workersAsked: Int

    /// Makes the plan for a picture.
    ///
    /// - Parameters:
    ///   - size: The picture.
    ///   - split: How to divide each band.
    ///   - workers: The worker count asked for; traps unless positive.
    ///   - tileSize: The tile size of the `tiles` split.
    ///   - bandHeight: Rows per band; the whole picture (one band) by default. Traps unless positive.
    public init(size: ImageSize, split: WorkSplit, workers: Int, tileSize: TileSize, bandHeight: Int? = nil) {
        precondition(workers > 0, "a plan needs at least one worker")
        let bandHeight = min(bandHeight ?? size.height, size.height)
        precondition(bandHeight > 0, "a band has at least one row")
        self.size = size
        self.split = split
        self.workersAsked = workers
        self.bandHeight = bandHeight
        bandCount = (size.height - 1) / bandHeight + 1
        fullBand = BandTiling(width: size.width, rows: bandHeight, split: split, workers: workers, tileSize: tileSize)
        let lastRows = size.height - (bandCount - 1) * bandHeight
        lastBand =
            lastRows == bandHeight
            ? fullBand
            : BandTiling(width: size.width, rows: lastRows, split: split, workers: workers, tileSize: tileSize)
        tileCount = (bandCount - 1) * fullBand.tileCount + lastBand.tileCount
    }

    /// How many workers the plan keeps busy: never more than a band has tiles.
    public var workerCount: Int { fullBand.workerCount }

    /// Whether workers take tiles in order from a shared counter rather than from fixed lists.
    public var isDynamic: Bool { split == .tiles }

    /// The band that tile `tile` belongs to.
    public func band(of tile: Int) -> Int {
        precondition(tile >= 0 && tile < tileCount, "tile outside the plan")
        return min(tile / fullBand.tileCount, bandCount - 1)
    }

    /// The index of band `band`'s first tile.
    public func firstTile(of band: Int) -> Int { band * fullBand.tileCount }

    /// How many tiles band `band` has.
    public func tileCount(of band: Int) -> Int { tiling(of: band).tileCount }

    /// The picture rows of band `band`.
    public func rows(of band: Int) -> Range<Int> {
        band * bandHeight..<min(size.height, (band + 1) * bandHeight)
    }

    /// Tile `tile`'s pixels, in picture coordinates.
    public func rect(of tile: Int) -> PixelRect {
        let band = band(of: tile)
        let local = tiling(of: band).rect(of: tile - firstTile(of: band))
        return PixelRect(x: local.x, y: local.y + band * bandHeight, width: local.width, height: local.height)
    }

    /// Band `band` alone, as a plan of its own: its tiles are numbered from 0, and its
    /// rectangles lie in the band (row 0 is the band's first).
    public func band(_ band: Int) -> WorkPlan {
        WorkPlan(
            size: ImageSize(width: size.width, height: rows(of: band).count), split: split, workers: workersAsked,
            tileSize: fullBand.tileSize)
    }

    /// Worker `worker`'s tiles in a static plan, band after band; traps for a dynamic plan.
    public func tiles(of worker: Int) -> WorkerTiles {
        precondition(!isDynamic, "a dynamic plan hands tiles out as workers ask")
        precondition(worker >= 0 && worker < workerCount, "no such worker")
        return WorkerTiles(plan: self, worker: worker)
    }

    func tiling(of band: Int) -> BandTiling { band == bandCount - 1 ? lastBand : fullBand }
}

/// One worker's tiles of a static plan, in the order it renders them.
public struct WorkerTiles: Sequence, Sendable {
    let plan: WorkPlan
    let worker: Int

    public struct Iterator: IteratorProtocol {
        let plan: WorkPlan
        let worker: Int
        var band = 0
        var inBand: StrideToIterator<Int>

        public mutating func next() -> Int? {
            while band < plan.bandCount {
                if let local = inBand.next() { return plan.firstTile(of: band) + local }
                band += 1
                if band < plan.bandCount { inBand = plan.tiling(of: band).tiles(of: worker).makeIterator() }
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(plan: plan, worker: worker, inBand: plan.tiling(of: 0).tiles(of: worker).makeIterator())
    }
}

/// How one band of `rows` rows is divided into tiles; coordinates are relative to the band.
struct BandTiling: Sendable {
    let split: WorkSplit
    let width: Int
    let rows: Int
    let tileSize: TileSize
    let tileCount: Int
    let workerCount: Int
    /// Tiles across one row of tiles (the `tiles` split).
    let columns: Int

    init(width: Int, rows: Int, split: WorkSplit, workers: Int, tileSize: TileSize) {
        self.split = split
        self.width = width
        self.rows = rows
        self.tileSize = tileSize
        switch split {
        case .bands:
            columns = 1
            tileCount = min(workers, rows)
            workerCount = tileCount
        case .rows:
            columns = 1
            tileCount = rows
            workerCount = min(workers, rows)
        case .tiles:
            columns = (width - 1) / tileSize.width + 1
            tileCount = columns * ((rows - 1) / tileSize.height + 1)
            workerCount = min(workers, tileCount)
        }
    }

    func rect(of tile: Int) -> PixelRect {
        switch split {
        case .bands:
            let top = tile * rows / tileCount
            let bottom = (tile + 1) * rows / tileCount
            return PixelRect(x: 0, y: top, width: width, height: bottom - top)
        case .rows:
            return PixelRect(x: 0, y: tile, width: width, height: 1)
        case .tiles:
            let left = tile % columns * tileSize.width
            let top = tile / columns * tileSize.height
            return PixelRect(
                x: left, y: top, width: min(tileSize.width, width - left), height: min(tileSize.height, rows - top))
        }
    }

    /// A static plan's tiles for `worker`: its band, or every `workerCount`-th row.
    func tiles(of worker: Int) -> StrideTo<Int> {
        guard worker < workerCount else { return stride(from: 0, to: 0, by: 1) }
        switch split {
        case .bands: return stride(from: worker, to: worker + 1, by: 1)
        case .rows: return stride(from: worker, to: rows, by: workerCount)
        case .tiles: preconditionFailure("a dynamic plan hands tiles out as workers ask")
        }
    }
}
