package import ArgumentParser
package import MandelbrotCore
import Platform

/// How the work is divided: workers, split, tile size and kernel.
///
/// `--workers` and `--tile` take one value for `render` and `compare`, and a
/// comma-separated list for `sweep`: one declaration and one parser for all three.
package struct WorkOptions: ParsableArguments {
    package init() {}

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Worker count, 1…1024 (default: the processors this process may use); mandel sweep takes a list such as "
                + "1,2,4.",
            valueName: "n"),
        transform: {
            try ValueParsing.list($0) { try ValueParsing.integer($0, allowed: "from 1 to \(Limits.maximumWorkers)") }
        })
    package var workers: [Int]?

    @Option(help: "Work split: bands (one block of rows per worker), rows (interleaved), tiles (dynamic queue).")
    package var split: WorkSplit = .tiles

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Tile size of the tiles split, WxH or N (default: 64x64, 512x64 for black and white, cut to the picture); "
                + "mandel sweep takes a list such as 16,32,64.",
            valueName: "size"),
        transform: { try ValueParsing.list($0) { try ValueParsing.size($0) } })
    package var tile: [TileSize]?

    @Option(help: "Kernel: simd (vectorised, with the cardioid shortcut) or scalar (the plain reference loop).")
    package var kernel: IterationKernel = .simd

    @Option(
        help: ArgumentHelp(
            "Tile order: rows, or centre (nearest the picture's centre first: operation, gcd and tasks queue every "
                + "tile in row order with its priority and let the mechanism choose, the others take tiles centre "
                + "first) (default: rows); mandel compare takes a list such as rows,centre.",
            valueName: "order"),
        transform: { try ValueParsing.words($0, kind: "order") })
    package var order: [TileOrder]?

    package mutating func validate() throws {
        if let workers, let outside = workers.first(where: { !(1...Limits.maximumWorkers).contains($0) }) {
            throw ValidationError("--workers must be from 1 to \(Limits.maximumWorkers) (got \(outside))")
        }
    }

    /// Refuses lists, for the commands that render one configuration; and tiles larger than `size`.
    package func validateSingleValues(command: String, size: PixelSize) throws {
        for (option, count) in [("--workers", workers?.count ?? 0), ("--tile", tile?.count ?? 0)] where count > 1 {
            throw ValidationError(
                "\(option) takes one value for mandel \(command); to measure several, use mandel sweep \(option) with "
                    + "a list"
            )
        }
        try validateTiles(fitIn: size)
    }

    /// Refuses a centre-first order where it cannot apply, and a list of orders where `command` takes one.
    package func validateOrder(command: String, size: PixelSize, format: PixelFormat, allowsList: Bool) throws {
        guard let order else { return }
        if let repeated = ValueParsing.firstRepeated(order) {
            throw ValidationError("--order lists \(repeated.rawValue) more than once")
        }
        if order.count > 1 && !allowsList {
            throw ValidationError(
                "--order takes one value for mandel \(command); to measure both, use mandel compare --order rows,centre"
            )
        }
        guard order.contains(.centre) else { return }
        if split != .tiles {
            throw ValidationError(
                "--order centre reorders the tiles split's queue; use --split tiles (got --split \(split.rawValue))")
        }
        // Every tile size of a sweep, not only the first.
        for tile in self.tile ?? [tileSize(for: size, format: format)] {
            let tiles = ((size.width + tile.width - 1) / tile.width) * ((size.height + tile.height - 1) / tile.height)
            guard tiles > TileOrder.maximumCentreTiles else { continue }
            throw ValidationError(
                "--order centre queues every tile at once with its priority: at most \(TileOrder.maximumCentreTiles) "
                    + "tiles (this picture has \(tiles) of \(tile)); use larger tiles")
        }
    }

    /// The tile orders asked for; rows alone by default.
    package var orders: [TileOrder] { order ?? [.rows] }

    /// Refuses tiles larger than the picture, for the tiles split: the bands and rows splits
    /// do not use `--tile`, so no size of it is refused with them (one rule for every split).
    package func validateTiles(fitIn size: PixelSize) throws {
        guard split == .tiles else { return }
        if let tooLarge = tile?.first(where: { $0.width > size.width || $0.height > size.height }) {
            throw ValidationError(
                "--tile \(tooLarge) is larger than the \(size) picture; use a tile no larger than the picture")
        }
    }

    /// The worker count: the first one given, or the processors this process may use.
    package var workerCount: Int { workers?.first ?? ProcessorCount.available }

    /// The tile size for a picture of `size`: the first one given, or 64×64 cut to the picture.
    ///
    /// A bilevel picture's default tile is 512×64: at one bit per pixel, with most of the
    /// set skipped, a 64×64 tile of the Benchmarks Game picture takes about 10 µs, no more
    /// than an operation or a task costs to schedule (measured: operation 0.94 s with
    /// 64×64 tiles, 0.65 s with 512×64, N = 16000).
    package func tileSize(for size: PixelSize, format: PixelFormat) -> TileSize {
        let width = format == .bilevel ? 512 : 64
        return tile?.first ?? TileSize(width: min(width, size.width), height: min(64, size.height))
    }
}

extension RenderJob {
    /// The job the options describe: the one place a job is built from the command line.
    package init(view: ViewOptions, work: WorkOptions) {
        self.init(
            size: view.size, region: view.region, iterations: view.iterationLimit, colorScheme: view.colorScheme,
            palette: view.colorPalette, split: work.split,
            tileSize: work.tileSize(
                for: view.size, format: view.colorScheme.pixelFormat(supersampling: view.samplesPerAxis)),
            workers: work.workerCount, kernel: work.kernel, julia: view.juliaConstant,
            supersampling: view.samplesPerAxis)
        deep = view.deepView
    }
}
