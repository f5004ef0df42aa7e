import Dispatch
import MandelbrotCore
import Platform

/// The blocks of one render on the draw queue.
struct Blocks: Sendable {
    let work: RenderWork
    let drawQueue: DrawQueue
    let group: DispatchGroup
    let queued = QueuedBlocks()

    /// Submits one block that renders the next free tile and then submits its successor, before it leaves the group.
    ///
    /// The block takes its tile when it runs, not when it is submitted: a tile is only
    /// ever held by a thread that is rendering it.
    func submitTaker() {
        queued.submit(to: drawQueue.queue, group: group) {
            drawQueue.preconditionOnDrawQueue()
            guard let tile = work.nextTile(), work.renderTile(tile) else { return }
            afterWait { submitTaker() }
        }
    }

    /// Submits a block that renders a worker's `tiles` in turn; when tiles wait, it renders
    /// one, and its successor is submitted by `asyncAfter` once the wait is over.
    func submitShare(_ tiles: ArraySlice<Int>) {
        guard !tiles.isEmpty else { return }
        queued.submit(to: drawQueue.queue, group: group) {
            drawQueue.preconditionOnDrawQueue()
            var rest = tiles
            while let tile = rest.popFirst() {
                guard work.renderTile(tile) else { return }
                if work.asynchronousWaitInterval != nil { return afterWait { [rest] in submitShare(rest) } }
            }
        }
    }

    /// Runs `next` now, or once the tile wait is over without holding a thread: the group is
    /// entered first, so its notify cannot run while a wait is pending.
    func afterWait(_ next: @escaping @Sendable () -> Void) {
        guard let wait = work.asynchronousWaitInterval else { return next() }
        group.enter()
        drawQueue.queue.asyncAfter(deadline: .now() + wait) {
            next()
            group.leave()
        }
    }
}

/// The render's blocks that are queued and not yet running, so that a cancel can reach them.
final class QueuedBlocks: Sendable {
    private let waiting = Locked<(next: Int, items: [Int: DispatchWorkItem])>((0, [:]))

    /// Submits `body` as a work item, remembered until it starts.
    func submit(to queue: DispatchQueue, group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        let item = waiting.withLock { waiting in
            let key = waiting.next
            waiting.next += 1
            let item = DispatchWorkItem { [weak self] in
                _ = self?.waiting.withLock { $0.items.removeValue(forKey: key) }
                body()
            }
            waiting.items[key] = item
            return item
        }
        queue.async(group: group, execute: item)
    }

    /// Cancels every block that has not started; a cancelled block still leaves the group.
    func cancelAll() {
        let items = waiting.withLock { waiting in
            defer { waiting.items.removeAll() }
            return Array(waiting.items.values)
        }
        items.forEach { $0.cancel() }
    }
}
