import Foundation
public import MandelbrotCore
import Platform
import Synchronization

/// `MandelbrotOperation`s on an `OperationQueue`: the second of the book's three ways.
///
/// A static plan makes one operation per worker; the `tiles` split makes one
/// operation per tile, which takes the next free tile when it runs. The
/// queue's `maxConcurrentOperationCount` is the worker count (1 is the book's
/// serial queue). Tile operations are queued a window at a time: each
/// finished operation's completion block queues a successor, so the queue
/// never holds more than twice the workers, however many tiles the picture has. As in the book, the end is announced by a
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
            "cancelAllOperations(), and no operation queued after it; an operation checks isCancelled before it starts and between tiles"
        )
    }

    public var asynchronousWait: String? {
        "an asynchronous Operation that finishes once the wait is over; it holds a place in the queue, not a thread"
    }

    public var priorityFacility: String? {
        "Operation.queuePriority: every tile's operation queued at once, in row order, veryHigh at the centre to veryLow at the corners"
    }

    /// `queuePriority` by priority class, the centre's first.
    static let priorities: [Operation.QueuePriority] = [.veryHigh, .high, .normal, .low, .veryLow]

    public var dependency: String {
        "addDependency: a gate operation depends on every operation of the first render, and the second "
            + "render's operations depend on the gate"
    }

    /// Queues the first operations and returns.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        let queue = Self.makeQueue(width: work.plan.workerCount)
        let feed = OperationFeed(work: work, queue: queue, completion: RenderCompletion(completion: completion))
        work.onCancel { feed.cancel() }
        feed.queue(Self.firstOperations(of: work))
        feed.finishedQueueing()
    }

    /// Queues every operation of the first render, a gate that depends on them all, and the
    /// second render's first operations, which depend on the gate; returns at once.
    ///
    /// The first render has an operation per tile (or per worker for a static plan), all
    /// known when the gate is made: one operation depending on many is exactly what corelibs
    /// Foundation does in superlinear time, so a preview of many tiles shows it.
    public func start(
        _ first: RenderWork, then second: RenderWork, firstDone: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable () -> Void
    ) {
        let queue = Self.makeQueue(width: max(first.plan.workerCount, second.plan.workerCount))
        let tiles: [MandelbrotOperation.Tiles] =
            first.plan.isDynamic
            ? (0..<first.plan.tileCount).map { .tile($0) }
            : (0..<first.plan.workerCount).map { .share(first.plan.tiles(of: $0)) }
        let firstOperations = tiles.map { OperationFeed.makeOperation(for: first, tiles: $0).operation }
        // The gate's own block tells the main queue: it runs before the gate is finished, so
        // before any operation that depends on it can start. Its completion block is too late
        // for that: corelibs sends it to a global queue after making the dependents ready, and
        // a small picture's whole render could complete first (CI saw the full picture reach
        // the main queue before its preview). A cancelled gate never runs its block; its
        // completion block tells the main queue then, so the main queue hears either way.
        let announcement = PreviewAnnouncement(firstDone)
        let gate = BlockOperation { announcement.tell() }
        firstOperations.forEach(gate.addDependency)
        let feed = OperationFeed(work: second, queue: queue, completion: RenderCompletion(completion: completion))
        // The completion waits for the preview's operations and the gate too (a cancel can end
        // the full picture's before them), and the feed keeps the gate, a dependent, until then.
        firstOperations.forEach { feed.include($0) }
        feed.include(gate, dependent: true) { announcement.tell() }
        first.onCancel { queue.cancelAllOperations() }
        second.onCancel { feed.cancel() }
        queue.addOperations(firstOperations + [gate], waitUntilFinished: false)
        feed.queue(Self.firstOperations(of: second), after: gate)
        feed.finishedQueueing()
    }

    private static func makeQueue(width: Int) -> OperationQueue {
        let queue = OperationQueue()
        queue.name = "mandel.operations"
        queue.maxConcurrentOperationCount = width
        return queue
    }

    /// What a render queues first: every tile with its priority (centre first), a window of
    /// operations that take the next free tile (tiles), or one per worker (static plans).
    private static func firstOperations(of work: RenderWork) -> [MandelbrotOperation.Tiles] {
        if work.plan.isDynamic && work.order == .centre {
            // Row order, each with its priority: the queue decides what runs first.
            return (0..<work.plan.tileCount).map { .tile($0) }
        } else if work.plan.isDynamic {
            return Array(repeating: .next, count: 2 * work.plan.workerCount)
        } else {
            return (0..<work.plan.workerCount).map { .share(work.plan.tiles(of: $0)) }
        }
    }
}

/// Tells the main queue once that the preview is done, whichever of two paths comes first.
final class PreviewAnnouncement: Sendable {
    private let told = Atomic(false)
    private let firstDone: @Sendable () -> Void

    init(_ firstDone: @escaping @Sendable () -> Void) { self.firstDone = firstDone }

    func tell() {
        guard !told.exchange(true, ordering: .acquiringAndReleasing) else { return }
        DispatchQueue.main.async(execute: firstDone)
    }
}

/// Queues a render's operations and counts the ones not yet finished.
final class OperationFeed: Sendable {
    private let queue: OperationQueue
    private let work: RenderWork
    private let completion: RenderCompletion
    /// Operations queued and not yet finished, plus one while the first ones are being queued.
    private let outstanding = Atomic<Int>(1)
    /// Set by a cancel: cancelAllOperations() reaches what is queued at that moment, and an
    /// operation that has just finished would otherwise queue a successor nothing cancels.
    private let cancelled = Atomic(false)
    /// The operations that depend on another, kept until every counted operation has finished.
    /// corelibs lists an operation's dependents unretained, and a cancel makes a dependent ready
    /// at once: its queue starts it, finishes it and releases it, and the operation it depended
    /// on, still running, walks that list when it finishes. Without these references a render
    /// cancelled during its preview crashed in `Operation.observeValue` (1 run in 6 or so).
    private let dependents = Locked<[Operation]>([])

    /// Cancels every queued and running operation, and queues no more.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        queue.cancelAllOperations()
    }

    init(work: RenderWork, queue: OperationQueue, completion: RenderCompletion) {
        self.work = work
        self.queue = queue
        self.completion = completion
    }

    /// An operation for `tiles` of `work` (asynchronous when tiles wait their mechanism's way),
    /// with its priority for a centre-first render, and a way to ask whether it found a tile.
    static func makeOperation(
        for work: RenderWork, tiles: MandelbrotOperation.Tiles
    ) -> (operation: Operation, foundTile: @Sendable () -> Bool) {
        let operation: Operation
        let foundTile: @Sendable () -> Bool
        if let wait = work.asynchronousWaitInterval {
            let waiting = WaitingMandelbrotOperation(work: work, tiles: tiles, wait: wait)
            (operation, foundTile) = (waiting, { [unowned waiting] in waiting.foundTile })
        } else {
            let plain = MandelbrotOperation(work: work, tiles: tiles)
            (operation, foundTile) = (plain, { [unowned plain] in plain.foundTile })
        }
        if case .tile(let tile) = tiles {
            operation.queuePriority =
                OperationStrategy.priorities[work.priorityClass(of: tile, among: OperationStrategy.priorities.count)]
        }
        return (operation, foundTile)
    }

    /// Queues an operation for each of `tiles`, each depending on `gate` if there is one.
    func queue(_ tiles: [MandelbrotOperation.Tiles], after gate: Operation? = nil) {
        let operations = tiles.map { tiles -> Operation in
            let (operation, foundTile) = Self.makeOperation(for: work, tiles: tiles)
            if let gate {
                operation.addDependency(gate)
                keep(operation)
            }
            // Runs once the operation is finished, whether it ran or was cancelled. An operation
            // that found a tile queues a successor; the first to find none ends the chain.
            operation.completionBlock = { [unowned operation] in
                if foundTile() && !operation.isCancelled && !self.cancelled.load(ordering: .relaxed) {
                    self.queue([.next])
                }
                self.operationFinished()
            }
            return operation
        }
        outstanding.add(operations.count, ordering: .relaxed)
        queue.addOperations(operations, waitUntilFinished: false)
    }

    /// Counts `operation`, queued by someone else, so that the completion waits for it too;
    /// `finished` runs first in its completion block. A `dependent` is kept (see `dependents`).
    func include(_ operation: Operation, dependent: Bool = false, finished: (@Sendable () -> Void)? = nil) {
        outstanding.add(1, ordering: .relaxed)
        if dependent { keep(operation) }
        operation.completionBlock = {
            finished?()
            self.operationFinished()
        }
    }

    /// Keeps `operation` until every counted operation has finished (see `dependents`).
    private func keep(_ operation: Operation) { dependents.withLock { $0.append(operation) } }

    /// Called once the first operations are queued.
    func finishedQueueing() { operationFinished() }

    private func operationFinished() {
        // The successor (if any) is counted before this operation is, so the count reaches zero only at the end.
        guard outstanding.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        // Every operation has finished: none walks its dependents any more. Letting go of them
        // also breaks the cycle through their completion blocks, which hold the feed.
        dependents.withLock { $0.removeAll() }
        completion.post()
    }
}

extension Notification.Name {
    /// Posted (with the render's `RenderCompletion` as the object) when every operation of a render has finished.
    static let mandelbrotRenderDidFinish = Notification.Name("MandelbrotRenderDidFinish")
}

/// The notification that completes a render, and the observer on the main queue that receives it.
final class RenderCompletion: Sendable {
    private let observation = ObservationToken()

    init(completion: @escaping @Sendable () -> Void) {
        let observation = self.observation
        observation.token = NotificationCenter.default.addObserver(
            forName: .mandelbrotRenderDidFinish, object: self, queue: .main
        ) { _ in
            // On the main queue: stop observing, then hand over the result.
            if let token = observation.token { NotificationCenter.default.removeObserver(token) }
            observation.token = nil
            completion()
        }
    }

    /// Posts the notification; called once, from the completion block of the last operation.
    func post() {
        // Waits until the observer has run on the main queue; the main queue never waits for workers.
        NotificationCenter.default.post(name: .mandelbrotRenderDidFinish, object: self)
    }
}

/// The observer registration, kept so the observer can remove itself.
final class ObservationToken: @unchecked Sendable {
    // @unchecked: written once in RenderCompletion.init, before any operation
    // is queued (so before any post), then read and cleared only by the
    // observer on the main queue; NotificationCenter's own locking orders the two.
    var token: (any NSObjectProtocol)?
}
