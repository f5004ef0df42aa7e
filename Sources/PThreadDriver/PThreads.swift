import MandelbrotCore
import Platform
import Synchronization

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
