import Dispatch
public import MandelbrotCore

/// GCD: blocks on the strategy's own draw queue, then a callback on the main queue. The seeds' third way.
///
/// With one worker the draw queue is serial, as in the seeds. With more, it
/// is concurrent, and a `DispatchGroup` notifies the main queue when every
/// block has run. A static plan submits one block per worker. The `tiles`
/// split submits one block per tile, keeping at most `workers` in flight:
/// each block, when its tile is done, submits the block for the next free
/// tile, so GCD never holds more blocks than there are workers and no one
/// waits on a semaphore.
public struct DispatchStrategy: RenderStrategy {
    /// Creates the strategy.
    public init() {}

    /// `gcd`.
    public var name: String { "gcd" }

    /// One line for `mandel strategies`.
    public var summary: String {
        "GCD: async blocks on a draw queue (one per tile, or per worker for static splits), DispatchGroup notify on the main queue."
    }

    /// Submits the first blocks and returns.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        let drawQueue = DrawQueue(concurrent: work.plan.workerCount > 1)
        let group = DispatchGroup()
        if let assignments = work.plan.assignments {
            for tiles in assignments {
                drawQueue.queue.async(group: group) {
                    drawQueue.assertOnDrawQueue()
                    for tile in tiles {
                        guard work.renderTile(tile) else { break }
                    }
                }
            }
        } else {
            for _ in 0..<work.plan.workerCount {
                submitNextTile(of: work, on: drawQueue, group: group)
            }
        }
        group.notify(queue: .main, execute: completion)
    }

    /// Submits one block for the next free tile; the block submits its successor before it leaves the group.
    private func submitNextTile(of work: RenderWork, on drawQueue: DrawQueue, group: DispatchGroup) {
        guard let tile = work.nextTile() else { return }
        drawQueue.queue.async(group: group) {
            drawQueue.assertOnDrawQueue()
            guard work.renderTile(tile) else { return }
            submitNextTile(of: work, on: drawQueue, group: group)
        }
    }
}
