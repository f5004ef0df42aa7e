import Dispatch
public import MandelbrotCore

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
        "GCD: async blocks on a draw queue (one per tile, or per worker for static splits), DispatchGroup notify on "
            + "the main queue."
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

    /// Submits the first render's blocks in a group; with a dependent render, the group's notify
    /// on the draw queue submits that one's. Returns at once.
    public func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {
        let drawQueue = DrawQueue(concurrent: run.workerCount > 1)
        let firstGroup = DispatchGroup()
        submit(run.first, on: drawQueue, group: firstGroup)
        guard let then = run.then else { return firstGroup.notify(queue: .main, execute: completion) }
        firstGroup.notify(queue: .main, execute: then.firstDone)
        firstGroup.notify(queue: drawQueue.queue) {
            let secondGroup = DispatchGroup()
            submit(then.work, on: drawQueue, group: secondGroup)
            secondGroup.notify(queue: .main, execute: completion)
        }
    }

    /// Submits `work`'s first blocks in `group`, which the last block of the render leaves.
    private func submit(_ work: RenderWork, on drawQueue: DrawQueue, group: DispatchGroup) {
        // GCD's own cancel: DispatchWorkItem.cancel(), which stops a block still waiting in
        // the queue and nothing that is running.
        let blocks = Blocks(work: work, drawQueue: drawQueue, group: group)
        work.onCancel { blocks.queued.cancelAll() }
        switch work.submission {
        case .prioritised(let priorities):
            // Row order, each tile to the global queue of its class: GCD decides what runs first.
            for tile in priorities.tiles {
                blocks.queued.submit(to: .global(qos: priorities.level(of: tile, among: Self.classes)), group: group) {
                    guard work.renderTile(tile) else { return }
                    blocks.afterWait {}
                }
            }
        case .takers(let count):
            for _ in 0..<count { blocks.submitTaker() }
        case .shares(let shares):
            for share in shares { blocks.submitShare(Array(share)[...]) }
        }
    }
}
