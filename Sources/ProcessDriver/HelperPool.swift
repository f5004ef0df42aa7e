import Foundation
import Platform
import Synchronization

/// Helpers kept from one render to the next (`mandel serve`): a slot whose pass ends takes its
/// helper back here, and the next pass's slot takes it instead of starting a program, sending it
/// the new pass's recipe. A helper that breaks down is killed and replaced as in any pass; the
/// pool only ever holds helpers that finished their last pass cleanly.
///
/// Helpers are started on one thread that lives as long as the pool: a helper asks the kernel
/// to end it when the thread that started it ends (``ChildProcess/endWithParent(expectedParent:signal:)``),
/// and a pass's slot threads end with the pass.
public final class HelperPool: Sendable {
    /// A helper waiting for its next pass; confined to whoever holds it.
    private struct Idle: @unchecked Sendable {
        let helper: HelperConnection
    }

    private let idle = Locked<[Idle]>([])
    /// The process ids of the helpers a pass holds now: a stop ends them too, mid-tile.
    private let lent = Locked<Set<Int32>>([])
    private let stopped = Atomic(false)
    private let starter = HelperStarter()
    /// The most helpers kept waiting; more are ended when their pass gives them back.
    public let capacity: Int

    /// A pool that keeps at most `capacity` idle helpers (by default as many as the processors, and 2 at least).
    public init(capacity: Int? = nil) {
        self.capacity = capacity ?? max(2, ProcessorCount.available)
    }

    /// A waiting helper, or a new one started on the pool's thread.
    func take(
        executable: String, slot: Int, generation: Int, deadlineNanoseconds: UInt64
    ) throws(HelperConnection.Breakdown) -> HelperConnection {
        let helper: HelperConnection
        if let waiting = idle.withLock({ $0.popLast() }) {
            helper = waiting.helper
        } else {
            let started = starter.run {
                Result { () throws(HelperConnection.Breakdown) -> Idle in
                    Idle(
                        helper: try HelperConnection(
                            executable: executable, slot: slot, generation: generation,
                            deadlineNanoseconds: deadlineNanoseconds))
                }
            }
            helper = try started.get().helper
        }
        let stoppedAlready = lent.withLock { lent -> Bool in
            lent.insert(helper.pid)
            return stopped.load(ordering: .relaxed)
        }
        // Lent after a stop: ended at once, as the stop would have ended it.
        if stoppedAlready { kill(helper.pid, SIGKILL) }
        return helper
    }

    /// Forgets that `helper` is lent, before it is reaped or given back (its pid may be another's after).
    func returned(_ helper: HelperConnection) {
        _ = lent.withLock { $0.remove(helper.pid) }
    }

    /// Takes `helper` back for the next pass (ending it instead once the pool is stopped or full).
    func give(_ helper: HelperConnection) {
        returned(helper)
        let kept = idle.withLock { list -> Bool in
            guard !stopped.load(ordering: .relaxed), list.count < capacity else { return false }
            list.append(Idle(helper: helper))
            return true
        }
        if !kept { helper.finish(graceNanoseconds: 1_000_000_000) }
    }

    /// Ends every helper, waiting or at work (its tile stops at once), and every helper given back
    /// from now on: the server is going away.
    public func stopAll() {
        lent.withLock { lent in
            stopped.store(true, ordering: .relaxed)
            for pid in lent { kill(pid, SIGKILL) }
        }
        let waiting = idle.withLock { list -> [Idle] in
            defer { list.removeAll() }
            return list
        }
        for entry in waiting { _ = entry.helper.kill() }
    }
}

/// One thread that runs what it is given, one thing at a time, for as long as the process
/// lives: the parent thread of every helper the pool starts.
private final class HelperStarter: @unchecked Sendable {
    // @unchecked: `job` is handed over under `lock`, and `ready`/`done` order its use.
    private let lock = NSLock()
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var job: (() -> Void)?

    init() {
        let thread = Thread { [ready, done, unowned(unsafe) self] in
            while true {
                ready.wait()
                self.job?()
                done.signal()
            }
        }
        thread.name = "mandel.helper-starter"
        thread.start()
    }

    /// Runs `body` on the starter's thread and returns its result.
    func run<Value>(_ body: @escaping () -> Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        var result: Value?
        job = { result = body() }
        ready.signal()
        done.wait()
        job = nil
        return result!
    }
}
