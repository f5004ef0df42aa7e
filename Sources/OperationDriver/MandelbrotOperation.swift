public import Foundation
public import MandelbrotCore

/// Renders a fixed list of tiles: the seeds' `MandelbrotOperation`, configured once in its initialiser.
public final class MandelbrotOperation: Operation, @unchecked Sendable {
    // @unchecked: Operation is a class with mutable state of its own, made
    // thread-safe by Foundation; the properties added here are immutable.

    /// The render the tiles belong to.
    public let work: RenderWork
    /// The tiles this operation renders, in order.
    public let tiles: [Int]

    /// Creates an operation for `tiles` of `work`.
    public init(work: RenderWork, tiles: [Int]) {
        self.work = work
        self.tiles = tiles
        super.init()
        name = "mandel.tiles.\(tiles.first ?? 0)"
    }

    /// Renders the tiles unless cancelled; checks before starting and between tiles.
    public override func main() {
        guard !isCancelled else { return }
        for tile in tiles {
            // The tile's record is its "publication": renderTile writes it only
            // for a finished tile, and only if the render is still wanted.
            guard !isCancelled, work.renderTile(tile) else { return }
        }
    }
}
