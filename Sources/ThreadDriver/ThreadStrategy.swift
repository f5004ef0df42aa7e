import Dispatch
import Foundation
public import MandelbrotCore

/// Foundation `Thread`s that the strategy creates, names and starts itself: the first of the book's three ways.
///
/// Each worker thread gets its arguments packed into one ``WorkerArguments``
/// object (a thread's entry point takes one), renders its share, and at its
/// exit point hands back to the main queue, which counts the finished threads
/// and calls the completion when the last one is in. The main queue is the
/// only place the count is touched, so it needs no lock.
///
/// corelibs Foundation's `Thread.start()` ignores a failed `pthread_create`:
/// the thread simply never runs, and the render would wait for it forever.
/// The render therefore checks, before it starts, that the process may start
/// as many threads as there are workers.
public struct ThreadStrategy: RenderStrategy {
    public init() {}

    public var name: String { "thread" }

    public var summary: String {
        "One Foundation Thread per worker, started by hand; each hops back to the main queue when it exits."
    }

    public var nativeCancellation: NativeCancellation {
        .stopsWorkers("Thread.cancel(); each thread checks isCancelled between tiles")
    }

    public var dependency: String {
        "by hand: each thread renders its share of the first render, waits at an NSCondition until every "
            + "thread has, then renders its share of the second"
    }

    /// Starts one thread per worker of the larger plan, each rendering its share of every
    /// render in turn; returns at once.
    public func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {
        let workerCount = run.workerCount
        let tally = FinishedThreadTally(expected: workerCount, completion: completion)
        let rendezvous = run.then.map { then in
            Rendezvous(expected: workerCount) { DispatchQueue.main.async(execute: then.firstDone) }
        }
        let threads = (0..<workerCount).map { worker in
            RenderThread(
                arguments: WorkerArguments(
                    run: run, worker: worker, rendezvous: rendezvous, exitOnMainQueue: { tally.threadFinished() }))
        }
        // A thread checks its own `isCancelled` between tiles; a cancel sets it on all of them.
        let handles = ThreadHandles(threads: threads)
        run.onCancel { handles.cancelAll() }
        threads.forEach { $0.start() }
    }
}

/// Counts finished worker threads on the main queue and completes the render after the last one.
final class FinishedThreadTally: @unchecked Sendable {
    // @unchecked: `finished` is confined to the main queue. Every call of
    // threadFinished() arrives through DispatchQueue.main.async (asserted below).
    private var finished = 0
    private let expected: Int
    private let completion: @Sendable () -> Void

    init(expected: Int, completion: @escaping @Sendable () -> Void) {
        self.expected = expected
        self.completion = completion
    }

    func threadFinished() {
        dispatchPrecondition(condition: .onQueue(.main))
        finished += 1
        if finished == expected { completion() }
    }
}

/// The worker threads, so that a cancel request from another thread can reach them.
///
/// The references are weak: the cancel handler holding this box lives in the render's
/// cancellation flag, and the threads hold the render, so strong references would
/// make a cycle. A running thread is kept alive by Foundation; a finished one needs no cancel.
final class ThreadHandles: @unchecked Sendable {
    // @unchecked: Foundation marks Thread non-Sendable, but the only call made
    // through this box is RenderThread.cancel(), which is an atomic store.
    private struct WeakThread {
        weak var thread: RenderThread?
    }

    private let threads: [WeakThread]

    init(threads: [RenderThread]) { self.threads = threads.map { WeakThread(thread: $0) } }

    func cancelAll() { threads.forEach { $0.thread?.cancel() } }
}
