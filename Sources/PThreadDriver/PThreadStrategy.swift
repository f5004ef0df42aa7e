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

    public var dependency: String {
        "by hand: each thread renders its share of the first render and waits on a pthread condition "
            + "until every started thread has, then renders its share of the second"
    }

    /// Creates one thread per worker of the larger plan, each rendering both in turn, and the joiner.
    public func start(
        _ first: RenderWork, then second: RenderWork, firstDone: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable () -> Void
    ) {
        let stop = StopFlag()
        first.onCancel { stop.set() }
        second.onCancel { stop.set() }
        let latch = Latch { DispatchQueue.main.async(execute: firstDone) }
        var workers: [pthread_t] = []
        for worker in 0..<max(first.plan.workerCount, second.plan.workerCount) {
            let job = PThreadJob {
                first.renderShare(of: worker) { !stop.isSet }
                latch.arriveAndWait()
                second.renderShare(of: worker) { !stop.isSet }
            }
            switch spawn(job) {
            case .success(let thread): workers.append(thread)
            case .failure(let failure): second.reportFailure(failure)
            }
            if second.isCancelled { break }
        }
        // Only now is it known how many threads the latch waits for.
        latch.expect(workers.count)
        join(workers, first: second, completion: completion)
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
        join(workers, first: work, completion: completion)
    }

    /// Starts the joiner, which waits for `workers` and hands the completion to the main queue.
    private func join(_ workers: [pthread_t], first work: RenderWork, completion: @escaping @Sendable () -> Void) {
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

/// Where the threads wait for each other between two renders, on a pthread mutex and
/// condition: it opens once every started thread has arrived, and the opener tells the
/// main queue. The number to wait for is set after the threads are created, since the
/// system may refuse some.
final class Latch: @unchecked Sendable {
    // @unchecked: the counts are read and written only with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var arrived = 0
    private var expected: Int?
    private var isOpen = false
    private let onOpen: @Sendable () -> Void

    init(onOpen: @escaping @Sendable () -> Void) {
        self.onOpen = onOpen
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Waits until the latch opens.
    func arriveAndWait() {
        pthread_mutex_lock(mutex)
        arrived += 1
        openIfEveryoneIsHere()
        while !isOpen { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Sets how many threads the latch waits for.
    func expect(_ count: Int) {
        pthread_mutex_lock(mutex)
        expected = count
        openIfEveryoneIsHere()
        pthread_mutex_unlock(mutex)
    }

    private func openIfEveryoneIsHere() {
        guard !isOpen, let expected, arrived >= expected else { return }
        isOpen = true
        onOpen()
        pthread_cond_broadcast(condition)
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
