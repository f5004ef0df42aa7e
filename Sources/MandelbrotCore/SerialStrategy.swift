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

    public var dependency: String { "the first render's completion on the main queue starts the second" }

    /// Renders every tile on the main queue, as the book's first way draws on the main
    /// thread, then calls `completion` there: the main queue is held for the whole render.
    public func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {
        DispatchQueue.main.async {
            Self.render(run.first)
            guard let then = run.then else { return completion() }
            then.firstDone()
            DispatchQueue.main.async {
                Self.render(then.work)
                completion()
            }
        }
    }

    /// Every tile of `work` in turn, on the calling thread.
    private static func render(_ work: RenderWork) {
        switch work.submission {
        case .prioritised, .takers:
            // The shared counter's order: row by row, or centre first.
            while let tile = work.nextTile(), work.renderTile(tile) {}
        case .shares:
            for index in 0..<work.plan.tileCount {
                guard work.renderTile(index) else { break }
            }
        }
    }
}
