import Dispatch

/// The baseline: every tile in order on the calling thread, with no other threads.
public struct SerialStrategy: RenderStrategy {
    /// Creates the strategy.
    public init() {}

    /// `serial`.
    public var name: String { "serial" }

    /// One line for `mandel strategies`.
    public var summary: String {
        "Baseline: every tile in turn on the calling thread, no extra threads (ignores --workers)."
    }

    /// One: the calling thread.
    public func concurrentWorkers(for plan: WorkPlan) -> Int { 1 }

    /// Renders every tile before returning, then calls `completion` on the main queue.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        for index in work.plan.tiles.indices {
            guard work.renderTile(index) else { break }
        }
        DispatchQueue.main.async(execute: completion)
    }
}
