import Foundation
public import MandelbrotCore

/// `MandelbrotOperation`s on an `OperationQueue`: the second of the book's three ways.
///
/// A static plan makes one operation per worker; the `tiles` split makes one
/// operation per tile, which takes the next free tile when it runs. The
/// queue's `maxConcurrentOperationCount` is the worker count (1 is the book's
/// serial queue). Tile operations are queued a window at a time: each
/// finished operation's completion block queues a successor, so the queue
/// never holds more than twice the workers, however many tiles the picture has. As in the book, the end is announced by
/// a
/// notification observed on `OperationQueue.main`, posted by the completion
/// block of the last operation to finish.
///
/// (A final operation that depends on all the others is the other classic
/// way, but corelibs Foundation handles a large dependency list in superlinear
/// time: with 60,000 tile operations it alone added 1.5 s.)
public struct OperationStrategy: RenderStrategy {
    public init() {}

    public var name: String { "operation" }

    public var summary: String {
        "MandelbrotOperation subclasses on an OperationQueue (max concurrency = workers); the last to finish "
            + "posts a notification observed on the main queue."
    }

    public var nativeCancellation: NativeCancellation {
        .stopsWorkers(
            "cancelAllOperations(), and no operation queued after it; an operation checks isCancelled before it starts "
                + "and between tiles"
        )
    }

    public var asynchronousWait: String? {
        "an asynchronous Operation that finishes once the wait is over; it holds a place in the queue, not a thread"
    }

    public var priorityFacility: String? {
        "Operation.queuePriority: every tile's operation queued at once, in row order, veryHigh at the centre to "
            + "veryLow at the corners"
    }

    /// `queuePriority` by priority class, the centre's first.
    static let priorities: [Operation.QueuePriority] = [.veryHigh, .high, .normal, .low, .veryLow]

    public var dependency: String {
        "addDependency: a gate operation depends on every operation of the first render, and the second "
            + "render's operations depend on the gate"
    }

    /// Queues the first operations and returns. With a dependent render, queues every operation of
    /// the first, a gate that depends on them all, and the dependent's first operations, which
    /// depend on the gate.
    ///
    /// The first render then has an operation per tile (or per worker for a static plan), all
    /// known when the gate is made: one operation depending on many is exactly what corelibs
    /// Foundation does in superlinear time, so a preview of many tiles shows it.
    public func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {
        let queue = Self.makeQueue(width: run.workerCount)
        guard let then = run.then else {
            let feed = OperationFeed(
                work: run.first, queue: queue, completion: RenderCompletion(completion: completion))
            run.first.onCancel { feed.cancel() }
            feed.queue(Self.firstOperations(of: run.first))
            return feed.finishedQueueing()
        }
        let firstOperations = Self.everyOperation(of: run.first).map {
            OperationFeed.makeOperation(for: run.first, tiles: $0).operation
        }
        // The gate's own block tells the main queue: it runs before the gate is finished, so
        // before any operation that depends on it can start. Its completion block is too late
        // for that: corelibs sends it to a global queue after making the dependents ready, and
        // a small picture's whole render could complete first (CI saw the full picture reach
        // the main queue before its preview). A cancelled gate never runs its block; its
        // completion block tells the main queue then, so the main queue hears either way.
        let announcement = PreviewAnnouncement(then.firstDone)
        let gate = BlockOperation { announcement.tell() }
        firstOperations.forEach(gate.addDependency)
        let feed = OperationFeed(work: then.work, queue: queue, completion: RenderCompletion(completion: completion))
        // The completion waits for the preview's operations and the gate too (a cancel can end
        // the full picture's before them), and the feed keeps the gate, a dependent, until then.
        firstOperations.forEach { feed.include($0) }
        feed.include(gate, dependent: true) { announcement.tell() }
        run.first.onCancel { queue.cancelAllOperations() }
        then.work.onCancel { feed.cancel() }
        queue.addOperations(firstOperations + [gate], waitUntilFinished: false)
        feed.queue(Self.firstOperations(of: then.work), after: gate)
        feed.finishedQueueing()
    }

    private static func makeQueue(width: Int) -> OperationQueue {
        let queue = OperationQueue()
        queue.name = "mandel.operations"
        queue.maxConcurrentOperationCount = width
        return queue
    }

    /// What a render queues first: every tile with its priority (centre first), a window of
    /// operations that take the next free tile (takers), or one per worker (shares).
    private static func firstOperations(of work: RenderWork) -> [MandelbrotOperation.Tiles] {
        switch work.submission {
        case .prioritised(let priorities): priorities.tiles.map { .tile($0) }
        case .takers(let count): Array(repeating: .next, count: 2 * count)
        case .shares(let shares): shares.map { .share($0) }
        }
    }

    /// Every operation of a render that another depends on: none may take its tile later.
    private static func everyOperation(of work: RenderWork) -> [MandelbrotOperation.Tiles] {
        switch work.submission {
        case .prioritised, .takers: (0..<work.plan.tileCount).map { .tile($0) }
        case .shares(let shares): shares.map { .share($0) }
        }
    }
}
