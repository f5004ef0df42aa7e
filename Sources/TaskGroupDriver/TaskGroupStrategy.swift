public import MandelbrotCore

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

    /// Starts the task that owns the groups and returns: it awaits the first render's group,
    /// then the dependent render's, if any.
    public func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {
        // The task's own cancel, registered before the task exists (so it cannot race with a
        // render that finishes first); cancelling the owning task cancels the group's children.
        let owner = OwningTask()
        run.onCancel { owner.cancel() }
        owner.set(
            Task.detached(priority: .userInitiated) {
                await Self.render(run.first)
                if let then = run.then {
                    // The main queue hears of it; the second render does not wait for the main queue.
                    Task { @MainActor in then.firstDone() }
                    await Self.render(then.work)
                }
                await MainActor.run { completion() }
            })
    }

    /// Renders every tile of `work` in a task group, and returns when the group is done.
    ///
    /// A child says whether it was a taker that found a tile: then the group adds the next taker.
    private static func render(_ work: RenderWork) async {
        await withTaskGroup(of: Bool.self) { group in
            /// A child that takes its tile when it runs, not when it is added: a tile is only
            /// ever held by a task that is rendering it.
            func addTaker() {
                group.addTask {
                    guard !Task.isCancelled, let tile = work.nextTile() else { return false }
                    return await renderInTurn(CollectionOfOne(tile), of: work)
                }
            }
            switch work.submission {
            case .prioritised(let priorities):
                // Row order, each with its priority: the pool decides what runs first.
                for tile in priorities.tiles {
                    group.addTask(priority: priorities.level(of: tile, among: Self.priorities)) {
                        _ = await renderInTurn(CollectionOfOne(tile), of: work)
                        return false
                    }
                }
            case .takers(let count):
                for _ in 0..<count { addTaker() }
            case .shares(let shares):
                for share in shares {
                    group.addTask {
                        _ = await renderInTurn(share, of: work)
                        return false
                    }
                }
            }
            while let tookTile = await group.next() {
                if work.isCancelled { group.cancelAll() }
                if tookTile { addTaker() }
            }
        }
    }

    /// Renders `tiles` in turn, each followed by the tile wait; false if cancelled first.
    private static func renderInTurn(_ tiles: some Sequence<Int>, of work: RenderWork) async -> Bool {
        for tile in tiles {
            guard !Task.isCancelled, work.renderTile(tile) else { return false }
            if let wait = work.asynchronousWait { try? await Task.sleep(for: wait) }
        }
        return true
    }
}
