import MandelbrotCore

/// Everything a worker thread needs, packed into one object because a thread's entry point takes one.
struct WorkerArguments: Sendable {
    /// The renders: the thread renders its share of each in turn.
    let run: StrategyRun
    /// This worker's number: its share of the plan, and its name.
    let worker: Int
    /// With a dependent render, where the thread meets the others once its share of the first is done.
    let rendezvous: Rendezvous?
    /// Runs on the main queue after the thread has finished its share.
    let exitOnMainQueue: @Sendable () -> Void
}
