import Dispatch

/// Runs a strategy and measures it the same way for every strategy.
public enum StrategyRunner {
    /// Starts `strategy` on `work`; calls `completion` on the main queue with the measurements.
    ///
    /// Wall time runs from the start call to the strategy's completion on the
    /// main queue, so it includes the cost of getting the result back to the
    /// main queue, as a real program pays it.
    public static func run(
        _ strategy: any RenderStrategy, work: RenderWork,
        completion: @escaping @Sendable (RenderReport) -> Void
    ) {
        let startCPU = CPUTime.now()
        let start = MonotonicClock.nanoseconds()
        strategy.start(work) {
            dispatchPrecondition(condition: .onQueue(.main))
            let end = MonotonicClock.nanoseconds()
            work.releaseCancelHandlers()
            let tiles = work.recorder.records(of: work.plan.tiles, since: start)
            completion(RenderReport(
                strategy: strategy.name,
                wallSeconds: Double(end - start) / 1e9,
                cpu: CPUTime.now().since(startCPU),
                wasCancelled: work.isCancelled || tiles.contains { !$0.isFinished },
                tiles: tiles,
                plannedWorkers: strategy.concurrentWorkers(for: work.plan)))
        }
    }

    /// Runs `strategy` on `work` and returns its measurements once its completion has run on the main queue.
    ///
    /// The caller must not block the main queue while it waits.
    public static func run(_ strategy: any RenderStrategy, work: RenderWork) async -> RenderReport {
        await withCheckedContinuation { continuation in
            run(strategy, work: work) { continuation.resume(returning: $0) }
        }
    }
}
