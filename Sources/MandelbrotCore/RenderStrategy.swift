/// A threading mechanism that runs the tiles of a render: the contract every driver implements.
///
/// A strategy decides only which thread renders which tile; the pixels come
/// from ``RenderWork/renderTile(_:)`` whoever calls it, so every strategy
/// produces the same image.
public protocol RenderStrategy: Sendable {
    /// The name used on the command line (`serial`, `thread`, `operation`, `gcd`, …).
    var name: String { get }
    /// One line on how the strategy works, for `mandel strategies`.
    var summary: String { get }

    /// Starts rendering every tile of `work` and returns without waiting
    /// (except the `serial` baseline, which works on the calling thread).
    ///
    /// Implementations must follow the plan (a static plan's assignments, or
    /// ``RenderWork/nextTile()`` for a dynamic one), stop taking tiles once
    /// ``RenderWork/isCancelled`` is set, and call `completion` exactly once,
    /// **on the main queue**, after every worker's last write to the canvas.
    func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void)

    /// How many workers run `plan` at once; the plan's worker count unless the strategy ignores it.
    func concurrentWorkers(for plan: WorkPlan) -> Int
}

extension RenderStrategy {
    /// The plan's worker count.
    public func concurrentWorkers(for plan: WorkPlan) -> Int { plan.workerCount }
}
