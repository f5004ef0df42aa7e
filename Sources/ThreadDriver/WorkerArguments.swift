import MandelbrotCore

/// Everything a worker thread needs, packed into one object because a thread's entry point takes one.
struct WorkerArguments: Sendable {
    /// The render.
    let work: RenderWork
    /// This worker's number, for its name.
    let worker: Int
    /// The tiles of a static plan; nil to take tiles from the shared queue.
    let assignedTiles: [Int]?
    /// Runs on the main queue after the thread has finished its share.
    let exitOnMainQueue: @Sendable () -> Void
}
