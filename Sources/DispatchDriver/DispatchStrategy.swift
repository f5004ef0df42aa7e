import Dispatch
public import MandelbrotCore
import Platform

/// GCD: blocks on the strategy's own draw queue, then a callback on the main queue. The third of the book's three ways.
///
/// With one worker the draw queue is serial, as in the book. With more, it
/// is concurrent, and a `DispatchGroup` notifies the main queue when every
/// block has run. A static plan submits one block per worker. The `tiles`
/// split submits one block per tile, keeping at most `workers` in flight:
/// each block takes the next free tile, renders it and submits its
/// successor, so GCD never holds more blocks than there are workers and no
/// one waits on a semaphore.
public struct DispatchStrategy: RenderStrategy {
    public init() {}

    public var name: String { "gcd" }

    public var summary: String {
        "GCD: async blocks on a draw queue (one per tile, or per worker for static splits), DispatchGroup notify on the main queue."
    }

    public var nativeCancellation: NativeCancellation {
        .queuedWorkOnly(
            "DispatchWorkItem.cancel() for blocks still queued; a running block goes on and submits its successor")
    }

    public var asynchronousWait: String? {
        "asyncAfter on the draw queue continues the work once the wait is over; no thread waits"
    }

    public var priorityFacility: String? {
        "QoS classes: every tile's block submitted at once, in row order, to the global queue of its class, "
            + "userInteractive at the centre to background at the corners (GCD, not the workers, sets the width)"
    }

    /// The global queues' classes by priority class, the centre's first.
    static let classes: [DispatchQoS.QoSClass] = [.userInteractive, .userInitiated, .utility, .background]

    public var dependency: String {
        "the first render's DispatchGroup notifies the draw queue, which submits the second's blocks; "
            + "a second notify tells the main queue"
    }

    /// Submits the first render's blocks in a group whose notify submits the second's; returns at once.
    public func start(
        _ first: RenderWork, then second: RenderWork, firstDone: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable () -> Void
    ) {
        let drawQueue = DrawQueue(concurrent: max(first.plan.workerCount, second.plan.workerCount) > 1)
        let firstGroup = DispatchGroup()
        submit(first, on: drawQueue, group: firstGroup)
        firstGroup.notify(queue: .main, execute: firstDone)
        firstGroup.notify(queue: drawQueue.queue) {
            let secondGroup = DispatchGroup()
            submit(second, on: drawQueue, group: secondGroup)
            secondGroup.notify(queue: .main, execute: completion)
        }
    }

    /// Submits the first blocks and returns.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        let drawQueue = DrawQueue(concurrent: work.plan.workerCount > 1)
        let group = DispatchGroup()
        submit(work, on: drawQueue, group: group)
        group.notify(queue: .main, execute: completion)
    }

    /// Submits `work`'s first blocks in `group`, which the last block of the render leaves.
    private func submit(_ work: RenderWork, on drawQueue: DrawQueue, group: DispatchGroup) {
        // GCD's own cancel: DispatchWorkItem.cancel(), which stops a block still waiting in
        // the queue and nothing that is running.
        let queued = QueuedBlocks()
        work.onCancel { queued.cancelAll() }
        if work.plan.isDynamic && work.order == .centre {
            // Row order, each tile to the global queue of its class: GCD decides what runs first.
            for tile in 0..<work.plan.tileCount {
                let qos = Self.classes[work.priorityClass(of: tile, among: Self.classes.count)]
                queued.submit(to: .global(qos: qos), group: group) {
                    guard work.renderTile(tile) else { return }
                    after(work.asynchronousWaitInterval, on: drawQueue, group: group) {}
                }
            }
        } else if work.plan.isDynamic {
            for _ in 0..<work.plan.workerCount {
                submitWorker(for: work, on: drawQueue, group: group, queued: queued)
            }
        } else {
            for worker in 0..<work.plan.workerCount {
                let tiles = Array(work.plan.tiles(of: worker))
                if let wait = work.asynchronousWaitInterval {
                    renderShare(tiles[...], of: work, waiting: wait, on: drawQueue, group: group, queued: queued)
                } else {
                    queued.submit(to: drawQueue.queue, group: group) {
                        drawQueue.assertOnDrawQueue()
                        for tile in tiles {
                            guard work.renderTile(tile) else { break }
                        }
                    }
                }
            }
        }
    }

    /// Submits one block that renders the next free tile and then submits its successor, before it leaves the group.
    ///
    /// The block takes its tile when it runs, not when it is submitted: a tile is only
    /// ever held by a thread that is rendering it.
    private func submitWorker(for work: RenderWork, on drawQueue: DrawQueue, group: DispatchGroup, queued: QueuedBlocks)
    {
        queued.submit(to: drawQueue.queue, group: group) {
            drawQueue.assertOnDrawQueue()
            guard let tile = work.nextTile(), work.renderTile(tile) else { return }
            after(work.asynchronousWaitInterval, on: drawQueue, group: group) {
                submitWorker(for: work, on: drawQueue, group: group, queued: queued)
            }
        }
    }

    /// A worker's share of a static plan when every tile waits: one block per tile, each
    /// submitted by `asyncAfter` once the wait after the one before is over.
    private func renderShare(
        _ tiles: ArraySlice<Int>, of work: RenderWork, waiting wait: DispatchTimeInterval, on drawQueue: DrawQueue,
        group: DispatchGroup, queued: QueuedBlocks
    ) {
        guard let tile = tiles.first else { return }
        queued.submit(to: drawQueue.queue, group: group) {
            drawQueue.assertOnDrawQueue()
            guard work.renderTile(tile) else { return }
            after(wait, on: drawQueue, group: group) {
                renderShare(
                    tiles.dropFirst(), of: work, waiting: wait, on: drawQueue, group: group, queued: queued)
            }
        }
    }

    /// Runs `next` now, or once `wait` is over without holding a thread: the group is
    /// entered first, so its notify cannot run while a wait is pending.
    private func after(
        _ wait: DispatchTimeInterval?, on drawQueue: DrawQueue, group: DispatchGroup,
        _ next: @escaping @Sendable () -> Void
    ) {
        guard let wait else { return next() }
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
