package import Platform

/// The processor time of the helper processes that rendered one run's tiles (the `process`
/// strategy), each added once it has been reaped: what the report's `cpu` adds to the
/// process's own, which leaves its children out.
package final class HelperProcessorTime: Sendable {
    private let sum = Locked<CPUTime>(.zero)

    /// The time of every helper recorded so far.
    var total: CPUTime { sum.withLock { $0 } }

    func add(_ time: CPUTime) { sum.withLock { $0 = $0.adding(time) } }
}

extension RenderWork {
    /// Adds the processor time of one of the run's helper processes, once reaped: a helper
    /// that broke down counts too, for its work was the render's.
    package func recordHelperProcessorTime(_ time: CPUTime) {
        helperTime.add(time)
    }
}
