/// A threading mechanism that runs the tiles of a render: the contract every driver implements.
///
/// A strategy decides only which thread renders which tile; the pixels come
/// from ``RenderWork/renderTile(_:)`` whoever calls it, so every strategy
/// produces the same picture.
///
/// ## The contract
///
/// A driver receives a ``StrategyRun``: one ``RenderWork``, or a preview and the picture that
/// depends on it (``StrategyRun/then``). Everything that is not the mechanism is decided in
/// the core; the driver writes only how its mechanism does what each work asks:
///
/// - **What to submit**: one `switch` over ``RenderWork/submission``:
///   - ``Submission/shares(_:)``: one worker per share, rendering its tiles in order;
///   - ``Submission/takers(count:)``: that many workers, each calling ``RenderWork/nextTile()``
///     when it is about to render (never ahead: a tile held by queued work can stall a band),
///     until it returns nil;
///   - ``Submission/prioritised(_:)`` (only if ``priorityFacility`` is not nil): every tile at
///     once, in row order, at the mechanism's level ``TilePriorities/level(of:among:)`` gives.
///
///   A worker that only loops on one thread calls ``RenderWork/renderShare(of:while:)``, which
///   does all three.
/// - **Each tile**: ``RenderWork/renderTile(_:)``; it returns false once the render is cancelled,
///   and the worker stops. A blocking tile wait happens inside it.
/// - **After each tile**: if ``RenderWork/asynchronousWait`` is set (only when
///   ``asynchronousWait`` is not nil), wait that long the mechanism's own non-blocking way.
/// - **What follows the preview**: with ``StrategyRun/then``, start its work only once every tile
///   of the first is done, expressed in the mechanism's own way (``dependency``); call its
///   `firstDone` exactly once on the main queue in between.
/// - **Cancellation**: register the mechanism's own cancel with ``StrategyRun/onCancel(_:)``
///   (what it can do is ``nativeCancellation``); the shared flag is checked by the core.
/// - **Failure**: a thread that will not start is reported with ``RenderWork/reportFailure(_:)``
///   on ``StrategyRun/last``; the completion still comes once the started workers have stopped.
/// - **The end**: call `completion` exactly once, **on the main queue**, after every worker's
///   last tile of the last render. Never block the main queue.
public protocol RenderStrategy: Sendable {
    /// The strategy's name (`serial`, `thread`, `operation`, `gcd`, …), as users type it.
    var name: String { get }
    /// One line on how the strategy works.
    var summary: String { get }

    /// Starts `run` and returns without waiting (except the `serial` baseline, which works
    /// on the main queue): see "The contract" above.
    func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void)

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
    /// A strategy that has one is given ``Submission/prioritised(_:)`` for a ``TileOrder/centre``
    /// render and submits every tile in row order with the level ``TilePriorities/level(of:among:)``
    /// gives it, letting the mechanism choose. Without one it is given takers, and
    /// ``RenderWork/nextTile()`` hands tiles out centre first.
    var priorityFacility: String? { get }

    /// How the mechanism makes the dependent render of a ``StrategyRun`` wait for the first, in words.
    var dependency: String { get }

    /// What the mechanism does when a worker crashes, in words.
    var recovery: String { get }

    /// Whether the workers are other processes, which build a deep view's table themselves from
    /// the reference orbit they receive: the render then builds none of its own.
    var workersBuildTheTable: Bool { get }
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

    /// Nothing: a worker is a thread, and its crash ends the process.
    public var recovery: String { "none: a worker is a thread of the process, and a crash in it ends the process" }

    /// No: the workers share the render's table.
    public var workersBuildTheTable: Bool { false }

}
