import Dispatch

/// Starts a strategy and waits, without blocking, for its completion on the main queue.
enum StrategyRunner {
    /// Runs `work` with `strategy`; returns once the completion has run on the main queue.
    static func run(_ strategy: any RenderStrategy, work: RenderWork) async {
        await run(strategy, StrategyRun(work))
    }

    /// Runs `first` and then `second`, which depends on it, as the strategy expresses that;
    /// `firstDone` runs on the main queue once `first` is done. Returns after `second`'s completion.
    static func run(
        _ strategy: any RenderStrategy, first: RenderWork, then second: RenderWork,
        firstDone: @escaping @Sendable () -> Void
    ) async {
        await run(
            strategy,
            StrategyRun(first, then: second) {
                dispatchPrecondition(condition: .onQueue(.main))
                first.releaseCancelHandlers()
                firstDone()
            })
    }

    /// Runs `run`, checking the contract on the way: the completion runs on the main queue, exactly once.
    private static func run(_ strategy: any RenderStrategy, _ run: StrategyRun) async {
        await awaitHandoff { handOff in
            strategy.start(run) {
                dispatchPrecondition(condition: .onQueue(.main))
                run.last.releaseCancelHandlers()
                handOff()
            }
        }
    }
}
