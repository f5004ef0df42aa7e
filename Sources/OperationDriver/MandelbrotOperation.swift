public import Foundation
public import MandelbrotCore

/// Renders one tile, or one worker's share of a static plan: the book's `MandelbrotOperation`,
/// configured once in its initialiser.
public final class MandelbrotOperation: Operation, @unchecked Sendable {
    // @unchecked: Operation is a class with mutable state of its own, made
    // thread-safe by Foundation; the properties added here are immutable.

    /// What an operation renders.
    public enum Tiles: Sendable {
        /// The next free tile of a dynamic plan, taken when the operation runs.
        case next
        /// A worker's tiles of a static plan, in order.
        case share(WorkerTiles)
        /// One given tile: a centre-first render queues every tile at once, each with its priority.
        case tile(Int)
    }

    /// The render the tiles belong to.
    public let work: RenderWork
    /// The tiles this operation renders.
    public let tiles: Tiles

    /// Creates an operation for `tiles` of `work`.
    public init(work: RenderWork, tiles: Tiles) {
        self.work = work
        self.tiles = tiles
        super.init()
    }

    /// Whether a `.next` operation found a tile to render (read after it has finished).
    public private(set) var foundTile = false

    /// Renders the tiles unless cancelled; checks before starting and between tiles.
    public override func main() {
        guard !isCancelled else { return }
        switch tiles {
        case .next:
            guard let tile = work.nextTile() else { return }
            foundTile = true
            work.renderTile(tile)
        case .share(let share):
            for tile in share {
                guard !isCancelled, work.renderTile(tile) else { return }
            }
        case .tile(let tile):
            work.renderTile(tile)
        }
    }
}
