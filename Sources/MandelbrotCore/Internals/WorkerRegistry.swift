import Platform
import Synchronization

/// Numbers the threads that take part in one render 0, 1, 2, … in the order they first render a tile.
///
/// Each thread caches its number in thread-specific storage, tagged with the
/// render it belongs to, so finding it costs one `pthread_getspecific` and
/// no lock; a pooled thread that served an earlier render gets a new number.
final class WorkerRegistry: Sendable {
    /// One key for the whole process, created once (`static let` is `dispatch_once`).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "out of thread-specific keys")
        return key
    }()
    private static let renders = Atomic<UInt>(0)

    private let render: UInt
    private let nextWorker = Atomic<Int>(0)

    init() {
        render = Self.renders.add(1, ordering: .relaxed).newValue
    }

    /// The number of the calling thread within this render.
    func currentWorker() -> Int {
        // The stored word is render << 20 | (worker + 1); zero means "none yet".
        let stored = UInt(bitPattern: pthread_getspecific(Self.key))
        if stored >> 20 == render, stored & 0xF_FFFF != 0 {
            return Int(stored & 0xF_FFFF) - 1
        }
        let worker = nextWorker.add(1, ordering: .relaxed).oldValue
        pthread_setspecific(Self.key, UnsafeRawPointer(bitPattern: render << 20 | UInt(worker + 1)))
        return worker
    }

}
