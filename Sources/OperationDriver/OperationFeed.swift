import Foundation
import MandelbrotCore
import Platform
import Synchronization

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
        if case .tile(let tile) = tiles, case .prioritised(let priorities) = work.submission {
            operation.queuePriority = priorities.level(of: tile, among: OperationStrategy.priorities)
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
