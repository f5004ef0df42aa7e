import Dispatch
public import MandelbrotCore
import Platform

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
        "Raw POSIX threads (pthread_create / pthread_join), no Foundation; a joiner thread hands the completion to the "
            + "main queue."
    }

    /// The workers and the joiner.
    public func threadsStarted(for plan: WorkPlan) -> Int { plan.workerCount + 1 }

    public var nativeCancellation: NativeCancellation {
        .stopsWorkers("a flag of its own that each thread checks between tiles (pthread_cancel would stop it mid-tile)")
    }

    public var dependency: String {
        "by hand: each thread renders its share of the first render and waits on a pthread condition "
            + "until every started thread has, then renders its share of the second"
    }

    /// Creates one thread per worker of the larger plan, each rendering its share of every
    /// render in turn, and the joiner; returns at once.
    public func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {
        // A pthread has no cancel of its own that is safe here (pthread_cancel would stop a
        // thread mid-tile, holding whatever it holds): its own way is a flag it checks.
        let stop = StopFlag()
        run.onCancel { stop.set() }
        let latch = run.then.map { then in Latch { DispatchQueue.main.async(execute: then.firstDone) } }
        var workers: [pthread_t] = []
        for worker in 0..<run.workerCount {
            let job = PThreadJob {
                run.renderShares(of: worker, meeting: { latch?.arriveAndWait() }, while: { !stop.isSet })
            }
            switch spawn(job) {
            case .success(let thread): workers.append(thread)
            case .failure(let failure): run.last.reportFailure(failure)
            }
            if run.last.isCancelled { break }
        }
        // Only now is it known how many threads the latch waits for.
        latch?.expect(workers.count)
        join(workers, of: run.last, completion: completion)
    }

    /// Starts the joiner, which waits for `workers` and hands the completion to the main queue.
    private func join(_ workers: [pthread_t], of work: RenderWork, completion: @escaping @Sendable () -> Void) {
        let joinAll = PThreadJob {
            for thread in workers { pthread_join(thread, nil) }
            DispatchQueue.main.async(execute: completion)
        }
        if case .failure(let failure) = spawn(joinAll, detached: true) {
            // No joiner: the workers stop at the cancel that the report sets, and a pool thread joins them.
            work.reportFailure(failure)
            DispatchQueue.global().async { joinAll.body() }
        }
    }
}
