import Dispatch
public import MandelbrotCore

/// `DispatchQueue.concurrentPerform` (`dispatch_apply` in C): a parallel for loop over the workers.
///
/// `concurrentPerform` blocks its caller until every iteration has run, so it
/// is called from a background queue and never from the main queue; the
/// completion then hops to the main queue. Iteration w is worker w: a static
/// plan's assignment, or tiles taken from the shared counter for `tiles`.
public struct ApplyStrategy: RenderStrategy {
    public init() {}

    public var name: String { "apply" }

    public var summary: String {
        "DispatchQueue.concurrentPerform (dispatch_apply), one iteration per worker, called from a background "
            + "queue; callback on the main queue."
    }

    /// concurrentPerform cannot be cancelled: every iteration runs.
    public var nativeCancellation: NativeCancellation { .none }

    public var dependency: String {
        "concurrentPerform returns once every iteration has run: the second loop is the next statement"
    }

    /// The loops, one after the other, on one background queue; returns at once.
    public func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "mandel.apply", qos: .userInitiated).async {
            let first = run.first
            DispatchQueue.concurrentPerform(iterations: first.plan.workerCount) { first.renderShare(of: $0) }
            if let then = run.then {
                DispatchQueue.main.async(execute: then.firstDone)
                let second = then.work
                DispatchQueue.concurrentPerform(iterations: second.plan.workerCount) { second.renderShare(of: $0) }
            }
            DispatchQueue.main.async(execute: completion)
        }
    }
}
