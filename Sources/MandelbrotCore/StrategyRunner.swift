import Dispatch

/// Starts a strategy on one pass and waits, without blocking, for its completion on the main queue.
enum StrategyRunner {
    /// Runs `work` with `strategy`; returns once the completion has run on the main queue.
    ///
    /// Checks the contract on the way: the completion runs on the main queue, exactly once.
    static func run(_ strategy: any RenderStrategy, work: RenderWork) async {
        await awaitHandoff { handOff in
            strategy.start(work) {
                dispatchPrecondition(condition: .onQueue(.main))
                work.releaseCancelHandlers()
                handOff()
            }
        }
    }

    /// Runs `first` and then `second`, which depends on it, as the strategy expresses that;
    /// `firstDone` runs on the main queue once `first` is done. Returns after `second`'s completion.
    static func run(
        _ strategy: any RenderStrategy, first: RenderWork, then second: RenderWork,
        firstDone: @escaping @Sendable () -> Void
    ) async {
        await awaitHandoff { handOff in
            strategy.start(
                first, then: second,
                firstDone: {
                    dispatchPrecondition(condition: .onQueue(.main))
                    first.releaseCancelHandlers()
                    firstDone()
                },
                completion: {
                    dispatchPrecondition(condition: .onQueue(.main))
                    second.releaseCancelHandlers()
                    handOff()
                })
        }
    }
}
