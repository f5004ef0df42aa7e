import MandelbrotCore

/// Everything a worker thread needs, packed into one object because a thread's entry point takes one.
struct WorkerArguments: Sendable {
    /// The render.
    let work: RenderWork
    /// This worker's number: its share of the plan, and its name.
    let worker: Int
    /// Runs on the main queue after the thread has finished its share.
    let exitOnMainQueue: @Sendable () -> Void
}
