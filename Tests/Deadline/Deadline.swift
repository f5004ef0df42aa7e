import Dispatch
import Synchronization

/// A wait that ran out: what the test was waiting for, and for how long.
public struct DeadlinePassed: Error, CustomStringConvertible {
    /// What the test waited for: "gcd rendering 41x29 in bands of 7 rows".
    public let waitingFor: String
    /// How long it waited, in seconds.
    public let seconds: Double
    /// When the wait ran out: the test that catches this may resume much later, when a thread
    /// of the cooperative pool is free (on two processors, tests that block can hold both).
    public let passedAt: ContinuousClock.Instant

    public init(waitingFor: String, seconds: Double) {
        self.waitingFor = waitingFor
        self.seconds = seconds
        passedAt = .now
    }

    public var description: String { "gave up after \(seconds) s waiting for \(waitingFor)" }
}

/// How long a test waits for one render in process: a hundred times what the slowest render of the
/// suite takes alone on a loaded machine (well under a second), and short of the minutes a hung
/// render would otherwise hold the whole run for.
public let renderDeadlineSeconds = 60.0

/// Runs `body` and returns what it returns, or throws ``DeadlinePassed`` if it has not finished
/// within `seconds`.
///
/// A body that never finishes is left running (there is no safe way to stop a hung render),
/// but the test fails at once and says what it was waiting for, and the run goes on.
public func withDeadline<Value: Sendable>(
    seconds: Double = renderDeadlineSeconds, waitingFor what: String,
    _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    // ThreadSanitizer sees no order between a continuation's resume and the code after its
    // await, and would report the body's writes (a rendered picture) against the test's reads:
    // an atomic store before the resume and a load after the await are an order it sees.
    let handedOver = HandOver()
    defer { precondition(handedOver.done.load(ordering: .acquiring), "resumed before the hand-over") }
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
        let pending = Mutex<CheckedContinuation<Value, any Error>?>(continuation)
        let finish = { @Sendable (result: Result<Value, any Error>) in
            guard let continuation = pending.withLock({ $0.take() }) else { return }
            handedOver.done.store(true, ordering: .releasing)
            continuation.resume(with: result)
        }
        // Off the cooperative pool: on two processors it has two threads, which tests that block
        // (waiting for a child process, say) can hold for seconds, and the clock would run meanwhile.
        Task(executorPreference: DispatchTaskExecutor.shared) {
            do { finish(.success(try await body())) } catch { finish(.failure(error)) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            finish(.failure(DeadlinePassed(waitingFor: what, seconds: seconds)))
        }
    }
}

/// The flag that orders a result's hand-over for ThreadSanitizer (see ``withDeadline``).
private final class HandOver: Sendable {
    let done = Atomic(false)
}

/// Runs tasks' jobs on Dispatch's global queue, whose threads are not the cooperative pool's.
final class DispatchTaskExecutor: TaskExecutor {
    static let shared = DispatchTaskExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue.global().async { job.runSynchronously(on: executor) }
    }
}
