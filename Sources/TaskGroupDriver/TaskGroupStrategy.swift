public import MandelbrotCore
import Platform

/// Swift structured concurrency: a `TaskGroup` of child tasks on the cooperative pool.
///
/// A static plan adds one child task per worker. The `tiles` split adds one
/// child task per tile, keeping at most `workers` in flight: each time a child
/// finishes, the group adds the next, which takes the next free tile. A cancelled render stops every child
/// within a row (they check the flag), and the dynamic loop cancels the group
/// (`cancelAll()`) as soon as it sees the flag, from inside the task: registering an
/// outside handler after creating the task would race with a render that finishes first. The completion is
/// delivered on the main actor, whose executor is the main queue.
public struct TaskGroupStrategy: RenderStrategy {
    public init() {}

    public var name: String { "tasks" }

    public var summary: String {
        "Swift concurrency: a TaskGroup of child tasks on the cooperative pool (one per tile, at most workers "
            + "in flight); completion on the main actor."
    }

    public var nativeCancellation: NativeCancellation {
        .stopsWorkers("Task.cancel() on the task that owns the group; children check Task.isCancelled between tiles")
    }

    public var asynchronousWait: String? {
        "Task.sleep suspends the child and frees its thread of the cooperative pool"
    }

    public var priorityFacility: String? {
        "Task priorities: a child task per tile added at once, in row order, high at the centre to background "
            + "at the corners (the cooperative pool, not the workers, sets the width)"
    }

    /// Child task priorities by priority class, the centre's first.
    static let priorities: [TaskPriority] = [.high, .medium, .low, .background]

    public var dependency: String {
        "structured awaiting: the owning task awaits the first render's TaskGroup, then runs the second's"
    }

    /// Starts the task that owns the group and returns.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        // The task's own cancel, registered before the task exists (so it cannot race with a
        // render that finishes first); cancelling the owning task cancels the group's children.
        let owner = OwningTask()
        work.onCancel { owner.cancel() }
        owner.set(
            Task.detached(priority: .userInitiated) {
                await Self.render(work)
                await MainActor.run { completion() }
            })
    }

    /// One task awaits the first render's group, then the second's.
    public func start(
        _ first: RenderWork, then second: RenderWork, firstDone: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable () -> Void
    ) {
        let owner = OwningTask()
        first.onCancel { owner.cancel() }
        second.onCancel { owner.cancel() }
        owner.set(
            Task.detached(priority: .userInitiated) {
                await Self.render(first)
                // The main queue hears of it; the second render does not wait for the main queue.
                Task { @MainActor in firstDone() }
                await Self.render(second)
                await MainActor.run { completion() }
            })
    }

    /// Renders every tile of `work` in a task group, and returns when the group is done.
    private static func render(_ work: RenderWork) async {
        if work.plan.isDynamic && work.order == .centre {
            // Row order, each with its priority: the pool decides what runs first.
            await withTaskGroup(of: Void.self) { group in
                for tile in 0..<work.plan.tileCount {
                    let priority = Self.priorities[work.priorityClass(of: tile, among: Self.priorities.count)]
                    group.addTask(priority: priority) {
                        guard !Task.isCancelled, work.renderTile(tile) else { return }
                        if let wait = work.asynchronousWait { try? await Task.sleep(for: wait) }
                    }
                }
                while await group.next() != nil {
                    if work.isCancelled { group.cancelAll() }
                }
            }
        } else if work.plan.isDynamic {
            await withTaskGroup(of: Bool.self) { group in
                // A child takes its tile when it runs, not when it is added: a tile is only
                // ever held by a task that is rendering it. It says whether it found one.
                func addChild() {
                    group.addTask {
                        guard !Task.isCancelled, let tile = work.nextTile(), work.renderTile(tile)
                        else { return false }
                        if let wait = work.asynchronousWait { try? await Task.sleep(for: wait) }
                        return true
                    }
                }
                for _ in 0..<work.plan.workerCount { addChild() }
                while let rendered = await group.next() {
                    if work.isCancelled { group.cancelAll() }
                    if rendered { addChild() }
                }
            }
        } else {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<work.plan.workerCount {
                    group.addTask {
                        for tile in work.plan.tiles(of: worker) {
                            guard !Task.isCancelled, work.renderTile(tile) else { break }
                            if let wait = work.asynchronousWait { try? await Task.sleep(for: wait) }
                        }
                    }
                }
            }
        }
    }
}

/// The task that owns the group, once it exists, and whether it was cancelled before then.
final class OwningTask: Sendable {
    private let state = Locked<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

    func set(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
