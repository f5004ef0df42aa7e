import Dispatch

/// The baseline: every tile in order on the calling thread, with no other threads.
public struct SerialStrategy: RenderStrategy {
    public init() {}

    public var name: String { "serial" }

    public var summary: String {
        "Baseline: every tile in turn on the calling thread, no other threads (one worker, whatever the worker count)."
    }

    /// A loop on the calling thread has no cancel of its own.
    public var nativeCancellation: NativeCancellation { .none }

    /// One: the calling thread.
    public func concurrentWorkers(for plan: WorkPlan) -> Int { 1 }

    /// None: the calling thread does the work.
    public func threadsStarted(for plan: WorkPlan) -> Int { 0 }

    /// Renders every tile before returning, then calls `completion` on the main queue.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        for index in 0..<work.plan.tileCount {
            guard work.renderTile(index) else { break }
        }
        DispatchQueue.main.async(execute: completion)
    }
}
