/// A value that threads share, behind a POSIX mutex.
///
/// Used instead of `Synchronization.Mutex` wherever threads may contend: on Linux the
/// Mutex's contended path waits in the kernel (a futex) out of ThreadSanitizer's sight,
/// which then reports the accesses it guards as races. A pthread mutex it understands.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only inside withLock, under the mutex.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the mutex held.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
