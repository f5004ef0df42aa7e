import MandelbrotCore

/// Everything a worker thread needs, packed into one object because a thread's entry point takes one.
struct WorkerArguments: Sendable {
    /// The render.
    let work: RenderWork
    /// This worker's number: its share of the plan, and its name.
    let worker: Int
    /// Runs on the main queue after the thread has finished its share.
    let exitOnMainQueue: @Sendable () -> Void
    /// A render that depends on `work`: the thread meets the others at the rendezvous once its
    /// share of `work` is done, then renders its share of this one.
    var then: (rendezvous: Rendezvous, work: RenderWork)? = nil
}
