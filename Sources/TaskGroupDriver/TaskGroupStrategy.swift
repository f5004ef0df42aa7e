public import MandelbrotCore

/// Swift structured concurrency: a `TaskGroup` of child tasks on the cooperative pool.
///
/// A static plan adds one child task per worker. The `tiles` split adds one
/// child task per tile, keeping at most `workers` in flight: each time a child
/// finishes, the group adds the next. A cancelled render stops every child
/// within a row (they check the flag), and the dynamic loop cancels the group
/// (`cancelAll()`) as soon as it sees the flag, from inside the task: registering an outside handler after creating
/// the task would race with a render that finishes first. The completion is
/// delivered on the main actor, whose executor is the main queue.
public struct TaskGroupStrategy: RenderStrategy {
    /// Creates the strategy.
    public init() {}

    /// `tasks`.
    public var name: String { "tasks" }

    /// One line for `mandel strategies`.
    public var summary: String {
        "Swift concurrency: a TaskGroup of child tasks on the cooperative pool (one per tile, at most workers in flight); completion on the main actor."
    }

    /// Starts the task that owns the group and returns.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        Task.detached(priority: .userInitiated) {
            await withTaskGroup(of: Void.self) { group in
                if let assignments = work.plan.assignments {
                    for tiles in assignments {
                        group.addTask {
                            for tile in tiles {
                                guard !Task.isCancelled, work.renderTile(tile) else { break }
                            }
                        }
                    }
                } else {
                    func addNextTile() {
                        guard !Task.isCancelled, let tile = work.nextTile() else {
                            if work.isCancelled { group.cancelAll() }
                            return
                        }
                        group.addTask { work.renderTile(tile) }
                    }
                    for _ in 0..<work.plan.workerCount { addNextTile() }
                    while await group.next() != nil { addNextTile() }
                }
            }
            await MainActor.run { completion() }
        }
    }
}
