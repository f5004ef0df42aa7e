import Dispatch
public import MandelbrotCore
import Platform
import Synchronization

/// POSIX threads created directly with `pthread_create` and joined with
/// `pthread_join`: no Foundation, no pool. The floor under every other mechanism.
///
/// The main queue must never block, so a joiner thread waits for the workers
/// and then hands the completion to the main queue. A thread the system will
/// not start is reported to the render, which then stops the others.
public struct PThreadStrategy: RenderStrategy {
    public init() {}

    public var name: String { "pthread" }

    public var summary: String {
        "Raw POSIX threads (pthread_create / pthread_join), no Foundation; a joiner thread hands the completion to the main queue."
    }

    /// The workers and the joiner.
    public func threadsStarted(for plan: WorkPlan) -> Int { plan.workerCount + 1 }

    public var nativeCancellation: NativeCancellation {
        .stopsWorkers("a flag of its own that each thread checks between tiles (pthread_cancel would stop it mid-tile)")
    }

    /// Creates the worker threads and the joiner, and returns.
    public func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        // A pthread has no cancel of its own that is safe here (pthread_cancel would stop a
        // thread mid-tile, holding whatever it holds): its own way is a flag it checks.
        let stop = StopFlag()
        work.onCancel { stop.set() }
        var workers: [pthread_t] = []
        for worker in 0..<work.plan.workerCount {
            switch spawn(PThreadJob { work.renderShare(of: worker) { !stop.isSet } }) {
            case .success(let thread): workers.append(thread)
            case .failure(let failure): work.reportFailure(failure)
            }
            if work.isCancelled { break }
        }
        let started = workers
        let joinAll = PThreadJob {
            for thread in started { pthread_join(thread, nil) }
            DispatchQueue.main.async(execute: completion)
        }
        if case .failure(let failure) = spawn(joinAll, detached: true) {
            // No joiner: the workers stop at the cancel that the report sets, and a pool thread joins them.
            work.reportFailure(failure)
            DispatchQueue.global().async { joinAll.body() }
        }
    }
}

/// The workers' own stop flag, set by the render's cancel.
final class StopFlag: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

/// The body of a thread, boxed so it can travel through `pthread_create`'s one `void *` argument.
final class PThreadJob: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Starts a thread running `job`, or says why the system would not.
func spawn(_ job: PThreadJob, detached: Bool = false) -> Result<pthread_t, RenderFailure> {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(job).toOpaque()
    let status = pthread_create(
        &thread, nil,
        { context in
            let job = Unmanaged<PThreadJob>.fromOpaque(context!).takeRetainedValue()
            job.body()
            return nil
        }, context)
    guard status == 0 else {
        Unmanaged<PThreadJob>.fromOpaque(context).release()
        return .failure(.threadNotStarted(code: status))
    }
    if detached { pthread_detach(thread) }
    return .success(thread)
}
