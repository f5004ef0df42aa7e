#if canImport(Glibc)
import Glibc
#endif
import Dispatch
public import MandelbrotCore

/// POSIX threads created directly with `pthread_create` and joined with
/// `pthread_join`: no Foundation, no pool. The floor under every other mechanism.
///
/// The main queue must never block, so a joiner thread waits for the workers
/// and then hands the completion to the main queue.
public struct PThreadStrategy: RenderStrategy {
    /// Creates the strategy.
    public init() {}

    /// `pthread`.
    public var name: String { "pthread" }

    /// One line for `mandel strategies`.
    public var summary: String {
        "Raw POSIX threads (pthread_create / pthread_join), no Foundation; a joiner thread hands the completion to the main queue."
    }

    /// Creates the worker threads and the joiner, and returns.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        let workers = (0..<work.plan.workerCount).map { worker in
            spawn(PThreadJob { work.renderShare(of: worker) })
        }
        _ = spawn(PThreadJob {
            for thread in workers { pthread_join(thread, nil) }
            DispatchQueue.main.async(execute: completion)
        }, detached: true)
    }
}

/// The body of a thread, boxed so it can travel through `pthread_create`'s one `void *` argument.
final class PThreadJob: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Starts a thread running `job`; traps if the system refuses (out of threads is a programmer-level failure here).
@discardableResult
func spawn(_ job: PThreadJob, detached: Bool = false) -> pthread_t {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(job).toOpaque()
    let status = pthread_create(&thread, nil, { context in
        let job = Unmanaged<PThreadJob>.fromOpaque(context!).takeRetainedValue()
        job.body()
        return nil
    }, context)
    precondition(status == 0, "pthread_create failed: \(status)")
    if detached { pthread_detach(thread) }
    return thread
}
