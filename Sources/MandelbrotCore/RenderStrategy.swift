/// A threading mechanism that runs the tiles of a render: the contract every driver implements.
///
/// A strategy decides only which thread renders which tile; the pixels come
/// from ``RenderWork/renderTile(_:)`` whoever calls it, so every strategy
/// produces the same picture.
public protocol RenderStrategy: Sendable {
    /// The strategy's name (`serial`, `thread`, `operation`, `gcd`, …), as users type it.
    var name: String { get }
    /// One line on how the strategy works.
    var summary: String { get }

    /// Starts rendering every tile of `work` and returns without waiting
    /// (except the `serial` baseline, which works on the calling thread).
    ///
    /// Implementations must follow the plan (``WorkPlan/tiles(of:)`` for a
    /// static plan, ``RenderWork/nextTile()`` for a dynamic one), stop taking
    /// tiles once ``RenderWork/isCancelled`` is set, report a thread that will
    /// not start with ``RenderWork/reportFailure(_:)``, and call `completion`
    /// exactly once, **on the main queue**, after every worker's last tile.
    func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void)

    /// How many workers run `plan` at once; the plan's worker count unless the strategy ignores it.
    func concurrentWorkers(for plan: WorkPlan) -> Int

    /// How many threads the strategy starts (or makes a pool start) for `plan`: what the
    /// process must be allowed to create before the render begins.
    func threadsStarted(for plan: WorkPlan) -> Int

    /// What the mechanism's own cancellation can do, without the shared flag
    /// (``CancellationMode/native``).
    var nativeCancellation: NativeCancellation { get }

    /// How the mechanism waits without holding a thread, in words; nil if it can only block.
    ///
    /// A strategy that has a way reads ``RenderWork/asynchronousWait`` and, when it is set,
    /// waits that long its own way after each tile it renders.
    var asynchronousWait: String? { get }

    /// The mechanism's own priority facility, in words; nil if it has none that orders work.
    ///
    /// A strategy that has one, given a ``TileOrder/centre`` render of a dynamic plan,
    /// submits every tile in row order with the priority ``RenderWork/priorityClass(of:among:)``
    /// gives it and lets the mechanism choose. Without one it takes tiles from
    /// ``RenderWork/nextTile()``, which hands them out centre first.
    var priorityFacility: String? { get }

    /// Renders every tile of `first`, then every tile of `second`, which depends on it: the
    /// dependency expressed in the mechanism's own way (``dependency``).
    ///
    /// Calls `firstDone` exactly once, on the main queue, once `first`'s last tile is done (the
    /// work of `second` may be under way by then), and `completion` exactly once, on the main
    /// queue, after `second`'s last tile. The default starts `second` from `first`'s completion.
    func start(
        _ first: RenderWork, then second: RenderWork, firstDone: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable () -> Void)

    /// How the mechanism makes one render wait for another, in words.
    var dependency: String { get }
}

/// What a threading mechanism's own cancellation can do.
public enum NativeCancellation: Sendable, Equatable {
    /// It has none: once started, the work runs to the end.
    case none
    /// It cancels work that has not started; what is running goes on (and may queue more).
    case queuedWorkOnly(String)
    /// It stops its running workers too, between tiles.
    case stopsWorkers(String)

    /// How the mechanism cancels, in words.
    public var description: String {
        switch self {
        case .none: "none"
        case .queuedWorkOnly(let how), .stopsWorkers(let how): how
        }
    }
}

extension RenderStrategy {
    /// The plan's worker count.
    public func concurrentWorkers(for plan: WorkPlan) -> Int { plan.workerCount }

    /// One thread per worker.
    public func threadsStarted(for plan: WorkPlan) -> Int { plan.workerCount }

    /// None: a worker that must wait blocks its thread.
    public var asynchronousWait: String? { nil }

    /// None: tiles come centre first from the shared counter.
    public var priorityFacility: String? { nil }

    /// The first render's completion, on the main queue, starts the second.
    public func start(
        _ first: RenderWork, then second: RenderWork, firstDone: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable () -> Void
    ) {
        start(first) {
            firstDone()
            start(second, completion: completion)
        }
    }

    /// The default's words.
    public var dependency: String { "the first render's completion on the main queue starts the second" }
}
