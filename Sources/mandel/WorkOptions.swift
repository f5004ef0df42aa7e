public import ArgumentParser
public import MandelbrotCore

/// How the work is divided: workers, split and tile size.
struct WorkOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Worker count, 1…1024 (default: the processors this process may use).", valueName: "n"))
    var workers: Int?

    @Option(help: "Work split: bands (one block of rows per worker), rows (interleaved), tiles (dynamic queue).")
    var split: WorkSplit = .tiles

    @Option(parsing: .unconditional, help: ArgumentHelp("Tile size of the tiles split, WxH or N (default: 64x64, cut to the image).", valueName: "size"))
    var tile: String?

    @Option(help: "Kernel: simd (vectorised, with the cardioid shortcut) or scalar (the plain reference loop).")
    var kernel: IterationKernel = .simd

    mutating func validate() throws {
        if let workers, !(1...Limits.maximumWorkers).contains(workers) {
            throw ValidationError("--workers must be from 1 to \(Limits.maximumWorkers) (got \(workers))")
        }
        if let tile {
            _ = try ArgumentParsing.dimensions(tile, option: "--tile", maximum: Limits.maximumSide)
        }
    }

    /// The worker count to use.
    var workerCount: Int { workers ?? ProcessorCount.available }

    /// The tile size for an image of `size`; valid after `validate()`.
    ///
    /// - Throws: `ValidationError` if a `--tile` given explicitly is larger than the image.
    func tileSize(for size: ImageSize) throws -> TileSize {
        guard let tile else {
            return TileSize(width: min(64, size.width), height: min(64, size.height))
        }
        let sides = try ArgumentParsing.dimensions(tile, option: "--tile", maximum: Limits.maximumSide)
        guard sides.width <= size.width, sides.height <= size.height else {
            throw ValidationError("--tile \(tile) is larger than the \(size) image; use a tile no larger than the image")
        }
        return TileSize(width: sides.width, height: sides.height)
    }
}

extension WorkSplit: ExpressibleByArgument {}
extension IterationKernel: ExpressibleByArgument {}
