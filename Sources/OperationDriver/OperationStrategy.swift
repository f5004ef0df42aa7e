import Foundation
public import MandelbrotCore
import Synchronization

/// `MandelbrotOperation`s on an `OperationQueue`: the seeds' second way.
///
/// A static plan makes one operation per worker; the `tiles` split makes one
/// operation per tile. The queue's `maxConcurrentOperationCount` is the
/// worker count (1 is the seeds' serial queue). As in the seeds, the end is
/// announced by a notification observed on `OperationQueue.main`: every
/// operation's completion block counts down, and the last one posts it.
///
/// (A final operation that depends on all the others is the other classic
/// way, but corelibs Foundation handles a large dependency list in superlinear
/// time: with 60,000 tile operations it alone added 1.5 s.)
public struct OperationStrategy: RenderStrategy {
    /// Creates the strategy.
    public init() {}

    /// `operation`.
    public var name: String { "operation" }

    /// One line for `mandel strategies`.
    public var summary: String {
        "MandelbrotOperation subclasses on an OperationQueue (max concurrency = workers); the last to finish posts a notification observed on the main queue."
    }

    /// Queues the operations and returns.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        let queue = OperationQueue()
        queue.name = "mandel.operations"
        queue.maxConcurrentOperationCount = work.plan.workerCount
        let tileGroups = work.plan.assignments ?? work.plan.tiles.indices.map { [$0] }
        let render = RenderCompletion(operationCount: tileGroups.count, completion: completion)
        let operations = tileGroups.map { tiles in
            let operation = MandelbrotOperation(work: work, tiles: tiles)
            // Runs once the operation is finished, whether it ran or was cancelled.
            operation.completionBlock = { render.operationFinished() }
            return operation
        }
        work.onCancel { queue.cancelAllOperations() }
        queue.addOperations(operations, waitUntilFinished: false)
    }
}

extension Notification.Name {
    /// Posted (with the render's `RenderCompletion` as the object) when every operation of a render has finished.
    static let mandelbrotRenderDidFinish = Notification.Name("MandelbrotRenderDidFinish")
}

/// Counts finished operations; the last one posts the notification that completes the render.
final class RenderCompletion: Sendable {
    private let remaining: Atomic<Int>
    private let observation = ObservationToken()

    init(operationCount: Int, completion: @escaping @Sendable () -> Void) {
        remaining = Atomic(operationCount)
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

    /// Called from each operation's completion block, on whatever thread finished it.
    func operationFinished() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            // Waits until the observer has run on the main queue; the main queue never waits for workers.
            NotificationCenter.default.post(name: .mandelbrotRenderDidFinish, object: self)
        }
    }
}

/// The observer registration, kept so the observer can remove itself.
final class ObservationToken: @unchecked Sendable {
    // @unchecked: written once in RenderCompletion.init, before any operation
    // is queued (so before any post), then read and cleared only by the
    // observer on the main queue; NotificationCenter's own locking orders the two.
    var token: (any NSObjectProtocol)?
}
