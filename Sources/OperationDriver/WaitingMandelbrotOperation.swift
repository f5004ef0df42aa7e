import Dispatch
import Foundation
import MandelbrotCore
import Platform

/// The asynchronous `Operation` for tiles that wait: it renders a tile, then finishes
/// (or renders its next tile) once the wait is over, without holding a thread meanwhile.
///
/// It counts against the queue's `maxConcurrentOperationCount` until it finishes, as an
/// operation that waits for a network reply does. corelibs Foundation has no key-value
/// observing; it learns of the state change from `didChangeValue(forKey:)`, which it
/// implements for exactly this.
final class WaitingMandelbrotOperation: Operation, @unchecked Sendable {
    // @unchecked: Operation's own state is Foundation's; the state added here is behind a lock.

    let work: RenderWork
    let tiles: MandelbrotOperation.Tiles
    private let wait: DispatchTimeInterval
    private let state = Locked<(executing: Bool, finished: Bool, foundTile: Bool)>((false, false, false))

    init(work: RenderWork, tiles: MandelbrotOperation.Tiles, wait: DispatchTimeInterval) {
        self.work = work
        self.tiles = tiles
        self.wait = wait
        super.init()
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { state.withLock { $0.executing } }
    override var isFinished: Bool { state.withLock { $0.finished } }

    /// Whether a `.next` operation found a tile to render (read after it has finished).
    var foundTile: Bool { state.withLock { $0.foundTile } }

    override func start() {
        guard !isCancelled else { return finish() }
        state.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
        switch tiles {
        case .next:
            guard let tile = work.nextTile() else { return finish() }
            state.withLock { $0.foundTile = true }
            guard work.renderTile(tile) else { return finish() }
            afterWait { self.finish() }
        case .share(let share):
            renderShare(Array(share)[...])
        case .tile(let tile):
            renderShare([tile])
        }
    }

    /// Renders the first of `tiles`, then the rest once the wait is over.
    private func renderShare(_ tiles: ArraySlice<Int>) {
        guard !isCancelled, let tile = tiles.first, work.renderTile(tile) else { return finish() }
        afterWait { self.renderShare(tiles.dropFirst()) }
    }

    private func afterWait(_ next: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + wait, execute: next)
    }

    private func finish() {
        state.withLock {
            $0.executing = false
            $0.finished = true
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
