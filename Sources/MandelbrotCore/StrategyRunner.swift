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
        // Histogram colouring needs the whole image's distribution before the
        // first pixel is coloured: the strategy runs once to count, then again
        // to colour, and the time covers both.
        guard let countingPass = work.makeCountingPass() else {
            finish(strategy, work: work, countingTiles: [], start: start, startCPU: startCPU, completion: completion)
            return
        }
        strategy.start(countingPass) {
            dispatchPrecondition(condition: .onQueue(.main))
            countingPass.releaseCancelHandlers()
            let countingTiles = countingPass.recorder.records(of: countingPass.plan.tiles, since: start)
            // The seal queues behind every tile's batch; the colouring pass starts from the main queue after it.
            work.histogram!.seal {
                DispatchQueue.main.async {
                    finish(strategy, work: work, countingTiles: countingTiles, start: start, startCPU: startCPU, completion: completion)
                }
            }
        }
    }

    /// Runs the pass that writes the pixels and reports.
    private static func finish(
        _ strategy: any RenderStrategy, work: RenderWork, countingTiles: [TileRecord], start: UInt64, startCPU: CPUTime,
        completion: @escaping @Sendable (RenderReport) -> Void
    ) {
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
                countingTiles: countingTiles,
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
