import CoverageShim
import Glibc
import MandelOptions
package import MandelbrotCore
import Platform

/// What the process sets up before anything else runs.
package enum ProcessStart {
    /// Descriptors the process uses besides its outputs: the three standard streams, Dispatch's
    /// event loop, the main queue's wake-up and its timers, the signal sources, and files in /proc.
    package static let descriptorsBesidesOutputs = 16

    /// Makes a write to a closed pipe or past `ulimit -f` fail with EPIPE or EFBIG, which
    /// mandel reports and cleans up after, instead of killing the process on the spot.
    package static func deliverWriteErrorsAsErrors() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Under a CPU time limit whose soft and hard values are equal (`ulimit -t N` sets both),
    /// arms a timer on the process's CPU clock that raises SIGXCPU before the limit is reached.
    ///
    /// The kernel sends SIGXCPU, which ``SignalWatch`` turns into a clean stop, only at a soft limit
    /// below the hard one; at the hard limit it sends SIGKILL, which leaves the output's temporary
    /// file behind. The timer fires at the hard limit less one second, or at half of it when it is
    /// one second: the stop that follows (workers within a row, the exit within 0.4 s) needs less.
    package static func warnBeforeTheCPULimit() {
        guard let seconds = ResourceLimits.processorSecondsWithoutWarning else { return }
        let hard = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !hard.overflow else { return }
        let warning = max(hard.partialValue - 1_000_000_000, hard.partialValue / 2)
        var event = sigevent()
        event.sigev_notify = Int32(SIGEV_SIGNAL)
        event.sigev_signo = SIGXCPU
        var timer: timer_t?
        guard timer_create(CLOCK_PROCESS_CPUTIME_ID, &event, &timer) == 0 else { return }
        // Absolute: the process's CPU time, which the limit counts, includes what it spent before this.
        var when = itimerspec()
        when.it_value = timespec(tv_sec: warning / 1_000_000_000, tv_nsec: warning % 1_000_000_000)
        _ = timer_settime(timer, TIMER_ABSTIME, &when, nil)
    }

    /// Raises the descriptor limit to what the command needs, or exits with 71 saying so.
    ///
    /// This must run before Dispatch starts: its main queue needs a descriptor of its
    /// own, and without one it stops the process with an illegal instruction.
    package static func ensureFileDescriptors(forOutputs outputs: Int, helpers: Int = 0) {
        // Helper processes start at once, each with both ends of two pipes open here until it runs:
        // 8 helpers failed now and then under 'ulimit -n 40' (pipe2: EMFILE) and never under 44.
        let needed = descriptorsBesidesOutputs + outputs + 4 * helpers
        let limit = ResourceLimits.fileDescriptors(raisingTo: needed)
        let open = ResourceLimits.openFileDescriptors() ?? 3
        // What is open already (inherited descriptors) counts against the limit too.
        guard limit - open >= needed - 3 else {
            let pipes = helpers > 0 ? " (the pipes of \(helpers) helper processes among them)" : ""
            writeError(
                "too few file descriptors: mandel needs \(needed)\(pipes) and may open \(max(0, limit - open)) more "
                    + "('ulimit -n' is \(limit)); raise the limit" + (helpers > 0 ? " or lower --workers" : "")
            )
            exit(71)
        }
    }

    /// Threads the process needs besides the strategy's: the main queue's drain after
    /// `dispatchMain()`, Dispatch's manager, the cooperative pool, and the queues of the
    /// render, the writer and the signal watch (measured: a serial render under
    /// `ulimit -u 10` stalls on Dispatch's retries, under 11 it does not).
    package static let threadsBesidesWorkers = 10

    /// Exits with 71 saying so if the process may not start the threads the command needs.
    ///
    /// libdispatch retries a thread that will not start for ever, and corelibs
    /// Foundation's `Thread.start()` ignores the failure, so a shortfall found later
    /// would be a silent hang, not an error.
    package static func ensureThreads(forWorkers workers: Int) {
        let needed = threadsBesidesWorkers + workers
        guard let available = ResourceLimits.threadsAvailable(), available < needed else { return }
        writeError(
            "cannot start the \(needed) threads this run needs: this user may start only \(available) more "
                + "('ulimit -u' counts threads); lower --workers or raise the limit"
        )
        exit(71)
    }

    /// Under an address-space limit (`ulimit -v`), keeps malloc to one arena and exits with 71
    /// saying so if the stacks of the threads the command needs do not fit.
    ///
    /// glibc gives each thread that allocates an arena of its own, and maps 64 MiB of address
    /// space for each; a thread's stack maps 8 MiB (`ulimit -s`). Under `prlimit --as=400000000`
    /// these used up the limit: libdispatch then retried threads for 10–15 s (2 runs in 3) and
    /// Foundation's threads never started. One arena costs nothing measurable here (the
    /// renders allocate outside their loops), and only a limited process uses it.
    package static func ensureAddressSpace(forWorkers workers: Int) {
        guard let available = ResourceLimits.addressSpaceAvailable() else { return }
        // mallopt(M_ARENA_MAX, 1): malloc.h is not in Glibc's module; RTLD_DEFAULT is a null handle.
        typealias MallocOption = @convention(c) (Int32, Int32) -> Int32
        if let mallopt = dlsym(nil, "mallopt") { _ = unsafeBitCast(mallopt, to: MallocOption.self)(-8, 1) }
        let threads = threadsBesidesWorkers + workers
        let needed = threads * ResourceLimits.threadStackBytes
        guard needed > available else { return }
        writeError(
            "not enough memory: the stacks of the \(threads) threads this run needs take \(ByteCount(needed)) of "
                + "address space, and this process may map \(ByteCount(available)) more ('ulimit -v'); "
                + "lower --workers or raise the limit")
        exit(71)
    }

    /// Writes `mandel: <message>` and a newline on standard error, with no buffering.
    package static func writeError(_ message: String) {
        writeRaw("mandel: \(message)\n")
    }

    /// Writes `text` on standard error as it is, with no buffering; a failure is ignored
    /// (standard error is where failures would be reported).
    package static func writeRaw(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Ends the process at once with `status`: no exit handlers, which on a busy process
    /// could run into Dispatch's teardown; every output is already written or removed. A coverage
    /// build writes its counts first (`scripts/coverage`); any other build has none to write.
    package static func exit(_ status: Int32) -> Never {
        mandel_write_coverage()
        _exit(status)
    }
}

extension ProcessStart {
    /// The threads `strategy` needs for `plan` that count against this user's limit: its own,
    /// and for `process` each helper's, whose threads the process limit counts as this user's
    /// (a helper that cannot start them exits with 71, and the run then fails after its header).
    package static func threadsNeeded(by strategy: any RenderStrategy, for plan: WorkPlan) -> Int {
        strategy.threadsStarted(for: plan) + helperProcesses(of: strategy, for: plan) * threadsBesidesWorkers
    }

    /// The helper processes `strategy` starts for `plan`: one per worker for `process`, none otherwise.
    package static func helperProcesses(of strategy: any RenderStrategy, for plan: WorkPlan) -> Int {
        strategy.name == "process" ? plan.workerCount : 0
    }
}

/// What a command will ask of the system, so the process can check before Dispatch starts.
package protocol ProcessNeeds {
    /// The files it will open.
    var outputCount: Int { get }
    /// The threads its strategies start, besides the process's own.
    var workerThreads: Int { get }
    /// The most helper processes its strategies start at once, each with pipes to this process.
    var helperProcesses: Int { get }
}

extension ProcessNeeds {
    package var helperProcesses: Int { 0 }
}
