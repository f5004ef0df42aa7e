import Dispatch

/// The strategy's own queue, labelled `mandel.draw`, and the check that code runs on it.
struct DrawQueue: Sendable {
    /// The queue itself.
    let queue: DispatchQueue

    /// Creates a serial queue, or a concurrent one.
    init(concurrent: Bool) {
        queue = DispatchQueue(label: "mandel.draw", qos: .userInitiated, attributes: concurrent ? .concurrent : [])
    }

    /// Traps unless the caller runs on this draw queue, in release builds too.
    ///
    /// A render's tiles must run where the strategy says they do; a block submitted to the
    /// wrong queue still draws the right pixels, so only this check would notice. As NIO's
    /// `NIOLoopBound` does, it holds in release builds, where the timing that lets such a
    /// bug show lives: `dispatchPrecondition` is a `precondition`, and it costs one
    /// thread-specific read per block.
    func preconditionOnDrawQueue() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
