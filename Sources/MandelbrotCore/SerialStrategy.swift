import Dispatch

/// The baseline: every tile in order on the main queue, with no other threads.
public struct SerialStrategy: RenderStrategy {
    public init() {}

    public var name: String { "serial" }

    public var summary: String {
        "Baseline: every tile in turn on the main queue, no other threads (one worker, whatever the worker count)."
    }

    /// A loop on the main queue has no cancel of its own.
    public var nativeCancellation: NativeCancellation { .none }

    /// One: the main thread.
    public func concurrentWorkers(for plan: WorkPlan) -> Int { 1 }

    /// None: the main thread does the work.
    public func threadsStarted(for plan: WorkPlan) -> Int { 0 }

    /// Renders every tile on the main queue, as the book's first way draws on the main
    /// thread, then calls `completion` there: the main queue is held for the whole render.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        DispatchQueue.main.async {
            if work.plan.isDynamic {
                // The shared counter's order: row by row, or centre first.
                while let tile = work.nextTile(), work.renderTile(tile) {}
            } else {
                for index in 0..<work.plan.tileCount {
                    guard work.renderTile(index) else { break }
                }
            }
            completion()
        }
    }
}
