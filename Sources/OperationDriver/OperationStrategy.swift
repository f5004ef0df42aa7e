import Foundation
public import MandelbrotCore

/// `MandelbrotOperation`s on an `OperationQueue`: the seeds' second way.
///
/// A static plan makes one operation per worker; the `tiles` split makes one
/// operation per tile. The queue's `maxConcurrentOperationCount` is the
/// worker count (1 is the seeds' serial queue). A final operation on
/// `OperationQueue.main` depends on every tile operation, so the completion
/// runs on the main queue once all of them have finished or been cancelled.
public struct OperationStrategy: RenderStrategy {
    /// Creates the strategy.
    public init() {}

    /// `operation`.
    public var name: String { "operation" }

    /// One line for `mandel strategies`.
    public var summary: String {
        "MandelbrotOperation subclasses on an OperationQueue (max concurrency = workers); a final operation on the main queue depends on them all."
    }

    /// Queues the operations and returns.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        let queue = OperationQueue()
        queue.name = "mandel.operations"
        queue.maxConcurrentOperationCount = work.plan.workerCount
        let tileGroups = work.plan.assignments ?? work.plan.tiles.indices.map { [$0] }
        let operations = tileGroups.map { MandelbrotOperation(work: work, tiles: $0) }
        let publish = BlockOperation(block: completion)
        operations.forEach(publish.addDependency)
        // The completion is not on `queue`, so cancelAllOperations() cannot cancel it:
        // cancelled tile operations still finish, and the dependency still fires.
        work.cancellation.onCancel { queue.cancelAllOperations() }
        OperationQueue.main.addOperation(publish)
        queue.addOperations(operations, waitUntilFinished: false)
    }
}
