import Foundation

/// Threads of the server's own, on which every request runs (a task executor): so that no
/// strategy can starve the server's answers, its noticing that a client went away, or its
/// shutdown.
///
/// On Linux the cooperative pool that Swift's tasks run on is libdispatch's, as wide as the
/// processors, and GCD's blocks, `concurrentPerform` and the `tasks` strategy's child tasks take
/// its threads for a whole tile each. Measured before this executor: `/health` took 0.8–4.2 s to
/// answer during a `gcd` tile, and a closed connection was noticed a second late. A tile's render
/// itself leaves these threads for the global pool (its reference orbit blocks for seconds).
package final class ServerThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is read and written under `condition` only.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// Starts `count` threads, which wait for work for as long as the process lives.
    init(count: Int) {
        precondition(count >= 1, "a server needs a thread")
        for index in 0..<count {
            let thread = Thread { [unowned(unsafe) self] in self.serve() }
            thread.name = "mandel.serve.\(index)"
            thread.start()
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
