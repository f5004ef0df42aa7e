package import Dispatch
import ImageFiles
import MandelOptions
package import MandelbrotCore
import Platform
import Synchronization

/// Turns every signal that would end the process into a clean stop: the work is
/// cancelled, no file is left behind, and the process exits with 128 + the signal.
///
/// Every signal whose default action ends the process, and that can be caught, stops at
/// once: SIGINT, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU (`ulimit -t`),
/// SIGVTALRM, SIGPROF, SIGIO, SIGSTKFLT, SIGPWR, SIGSYS and the real-time signals; and the
/// signals of a fault (SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP) when another process
/// sends them (see ``faultSignals``). SIGTERM
/// is a polite request, like the book's app asked to move to the background:
/// the work in flight may finish within a grace period and be written; if the
/// grace runs out, it is cancelled cleanly. A signal the process inherited as
/// ignored (`nohup` ignores SIGHUP; a shell ignores SIGINT and SIGQUIT for
/// background jobs; any parent may ignore any signal) stays ignored, whichever it is. SIGPIPE and SIGXFSZ are turned
/// into write
/// errors at startup (see ``ProcessStart``).
///
/// The signals are handled on a serial queue of their own, not the main queue,
/// so they are seen even while the `serial` strategy keeps the main queue busy.
/// If the process has not exited within a short deadline after a stop (a
/// worker deep in a row, a write blocked on a full pipe), it exits anyway,
/// after removing every temporary file.
package final class SignalWatch: @unchecked Sendable {
    // @unchecked: the signal sources are the only non-Sendable members; they are
    // created in init and cancelled in stop(), and a dispatch source may be
    // cancelled from any thread. The rest is atomic.

    /// The signals that stop the work: every one whose default action ends the process,
    /// except SIGKILL (which cannot be caught), SIGPIPE and SIGXFSZ (write errors, see
    /// ``ProcessStart``) and the ``faultSignals``.
    package static let stoppingSignals =
        [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF, SIGIO]
        + [SIGSTKFLT, SIGPWR, SIGSYS] + Array(realTimeSignals)

    /// The signals of a fault, which Swift's backtracer catches to report a crash. Raised by the
    /// process itself (a bad access, a trap, `abort()`), they go on to the handler that was there
    /// before (the backtracer, or the default): a crash stays a crash. Sent by another process (a
    /// supervisor's `kill -ABRT`), they stop the work as SIGINT does; the backtracer alone would
    /// print a crash report and let the render go on.
    package static let faultSignals = [SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP]

    /// SIGRTMIN…SIGRTMAX as this C library numbers them (it keeps the first two for itself).
    package static var realTimeSignals: ClosedRange<Int32> { __libc_current_sigrtmin()...__libc_current_sigrtmax() }

    /// The signals this watch handles: the stopping signals not inherited as ignored.
    private var watched: [Int32] = []
    /// The fault signals this watch takes when another process sends them.
    private var forwardedFaults: [Int32] = []
    /// How long the work gets to stop after a signal before the process exits regardless.
    package static let exitDeadline: DispatchTimeInterval = .milliseconds(400)

    /// The flag every render of this command watches.
    package let cancellation = CancellationFlag()
    /// What to say on standard error when the work finished within SIGTERM's grace, if more
    /// than ``CommandRun/perform(grace:finishing:_:)``'s words (set on the main actor).
    package var terminationNote: String?
    private let queue = DispatchQueue(label: "mandel.signals")
    private var sources: [any DispatchSourceRead] = []
    private let stopSignal = Atomic<Int32>(0)
    /// Files put in place on purpose before the run ended (a preview), which a stop leaves where they are.
    private let placedEarly = Locked<[String]>([])
    private let terminationRequested = Atomic<Bool>(false)
    /// The read end of the signal pipe (nonblocking), or -1 without one.
    private var readEnd: Int32 = -1
    /// Seconds the work may still take after SIGTERM.
    private let grace: Double
    /// Signals that end the work with status 0 and no line.
    private let quietSignals: Set<Int32>

    /// Starts watching; call before any output is opened.
    ///
    /// Each signal is caught by a C handler that writes its number into a pipe, which a
    /// read source on the signal queue drains. Dispatch's own signal sources lost signals
    /// under load: on Linux its handler blocks the signal in the thread that took it and
    /// raises it again at that thread alone, where its signalfd never sees it, and its worker
    /// threads leave SIGPROF and SIGSYS unblocked (seen: SIGPROF and SIGSYS lost, the render
    /// run to its end). A pipe loses nothing: a byte written before the source is armed waits.
    ///
    /// - Parameters:
    ///   - grace: Seconds the work may still take after SIGTERM.
    ///   - quietSignals: Signals that end the work as asked, not as a failure (`mandel serve`'s
    ///     SIGINT and SIGTERM): exit status 0, and no line.
    package init(grace: Double, quietSignals: Set<Int32> = []) {
        self.quietSignals = quietSignals
        self.grace = grace
        watched = Self.stoppingSignals.filter { !Self.isInheritedAsIgnored($0) }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            // Descriptors were checked at the start; without a pipe the signals keep their defaults.
            ProcessStart.writeError("warning: no pipe for the signal handlers; a signal now will not clean up")
            watched = []
            return
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        readEnd = ends[0]
        SignalPipe.writeEnd = ends[1]
        let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: queue)
        // The handler holds self, and self holds the source: stop() cancels it, which
        // releases the handler and breaks the cycle.
        source.setEventHandler { self.handleArrived() }
        source.resume()
        sources.append(source)
        for signalNumber in watched {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardSignal
            sigemptyset(&action.sa_mask)
            // Interrupted system calls resume: the signal is handled on the queue, not where it landed.
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
        for signalNumber in Self.faultSignals where !Self.isInheritedAsIgnored(signalNumber) {
            FaultForwarding.install(signalNumber)
            forwardedFaults.append(signalNumber)
        }
    }

    /// Handles the signals whose numbers wait in the pipe (on the watch's queue).
    private func handleArrived() {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(readEnd, &bytes, bytes.count)
        for signalNumber in bytes.prefix(max(0, count)).map(Int32.init) {
            if signalNumber != SIGTERM {
                stop(because: signalNumber)
            } else if !terminationRequested.exchange(true, ordering: .relaxed) {
                queue.asyncAfter(deadline: .now() + grace) { self.stop(because: SIGTERM) }
            }
        }
    }

    /// Handles, now, every signal that has arrived but that the read source has not yet seen:
    /// a SIGTERM that came while the work's last write was blocked must be known when the work
    /// ends, or the run ends without its note (the source runs when Dispatch gets to it, which
    /// on a loaded machine can be after the work's end).
    package func settle() {
        guard readEnd >= 0 else { return }
        queue.sync { handleArrived() }
    }

    /// Whether `signalNumber` is ignored now, that is, before the watch starts: as the process inherited it.
    package static func isInheritedAsIgnored(_ signalNumber: Int32) -> Bool {
        var current = sigaction()
        sigaction(signalNumber, nil, &current)
        // SIG_IGN is the handler address 1; handlers are C function pointers, not comparable in Swift.
        return current.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) } == 1
    }

    /// The signal that stopped the work, if one did.
    package var stoppedBy: Int32? {
        let signal = stopSignal.load(ordering: .relaxed)
        return signal == 0 ? nil : signal
    }

    /// Whether SIGTERM arrived (the work may still be finishing within its grace).
    package var wasAskedToTerminate: Bool { terminationRequested.load(ordering: .relaxed) }

    /// Stops watching and restores the default actions.
    package func stop() {
        sources.forEach { $0.cancel() }
        for signalNumber in watched {
            signal(signalNumber, SIG_DFL)
        }
        forwardedFaults.forEach(FaultForwarding.restore)
    }

    private func stop(because signalNumber: Int32) {
        guard stopSignal.compareExchange(expected: 0, desired: signalNumber, ordering: .relaxed).exchanged else {
            return
        }
        cancellation.cancel()
        queue.asyncAfter(deadline: .now() + Self.exitDeadline) {
            // Still here: the normal clean-up is stuck. Remove what it would have removed, and go.
            if !self.quietSignals.contains(signalNumber) {
                let erase = Terminal.standardErrorIsTerminal ? "\r\u{1B}[K" : ""
                ProcessStart.writeError(
                    erase.isEmpty ? self.stopMessage : erase + "mandel: " + self.stopMessage)
            }
            TemporaryFiles.removeAll()
            ProcessStart.exit(self.exitStatus)
        }
    }

    /// The one line printed when a signal stops the work.
    package static func describe(_ signalNumber: Int32, placedEarly: [String] = []) -> String {
        let name =
            switch signalNumber {
            case SIGINT: "interrupted"
            case SIGTERM: "terminated: the grace period ran out"
            case SIGHUP: "hung up (SIGHUP)"
            case SIGQUIT: "quit (SIGQUIT)"
            case SIGALRM: "stopped by SIGALRM"
            case SIGUSR1: "stopped by SIGUSR1"
            case SIGUSR2: "stopped by SIGUSR2"
            case SIGXCPU: "stopped by SIGXCPU: the CPU time limit ('ulimit -t') ran out"
            case SIGVTALRM: "stopped by SIGVTALRM"
            case SIGPROF: "stopped by SIGPROF"
            case SIGIO: "stopped by SIGIO"
            case SIGABRT: "stopped by SIGABRT, sent by another process"
            case SIGBUS: "stopped by SIGBUS, sent by another process"
            case SIGFPE: "stopped by SIGFPE, sent by another process"
            case SIGILL: "stopped by SIGILL, sent by another process"
            case SIGSEGV: "stopped by SIGSEGV, sent by another process"
            case SIGTRAP: "stopped by SIGTRAP, sent by another process"
            case SIGSTKFLT: "stopped by SIGSTKFLT"
            case SIGPWR: "stopped by SIGPWR"
            case SIGSYS: "stopped by SIGSYS"
            case realTimeSignals: "stopped by SIGRTMIN+\(signalNumber - realTimeSignals.lowerBound)"
            default: "stopped by signal \(signalNumber)"
            }
        guard !placedEarly.isEmpty else { return name + "; the work was cancelled and no file was left" }
        return name + "; the work was cancelled, and only " + named(placedEarly, "left")
    }

    /// Files put in place before the run's end, for a line: "a.png was <verb> (put in place when it was
    /// ready)", or, for the frames of a zoom, every name up to three, else the first, the last and how many.
    private static func named(_ placed: [String], _ verb: String) -> String {
        let names = placed.map(Display.path)
        guard names.count > 1 else { return "\(names[0]) was \(verb) (put in place when it was ready)" }
        let listed =
            names.count <= 3
            ? names.joined(separator: ", ") : "\(names[0]) … \(names[names.count - 1]) (\(names.count) files)"
        return "\(listed) were \(verb) (each put in place when it was ready)"
    }

    /// Notes a file put in place before the run's end, for the stop message.
    package func placedEarly(_ path: String) { placedEarly.withLock { $0.append(path) } }

    /// The clause a failure's line ends with when a file was put in place before it (a
    /// preview, which stays): empty when none was.
    package var placedEarlyClause: String {
        let placed = placedEarly.withLock { $0 }
        guard !placed.isEmpty else { return "" }
        return "; only " + Self.named(placed, "written")
    }

    /// Whether `path` was put in place before the run's other outputs (a preview).
    package func wasPlacedEarly(_ path: String) -> Bool { placedEarly.withLock { $0.contains(path) } }

    /// The line for the current stop.
    package var stopMessage: String {
        Self.describe(stopSignal.load(ordering: .relaxed), placedEarly: placedEarly.withLock { $0 })
    }

    /// The exit status for the current stop: 128 + the signal, or 0 for a quiet one.
    package var exitStatus: Int32 {
        let signalNumber = stopSignal.load(ordering: .relaxed)
        return quietSignals.contains(signalNumber) ? 0 : 128 + signalNumber
    }

    /// Whether the work was stopped by one of the signals that end it quietly.
    package var stoppedQuietly: Bool { stoppedBy.map(quietSignals.contains) ?? false }
}

/// The write end of the signal pipe, which the C handler reads: set before any handler is installed.
private enum SignalPipe {
    nonisolated(unsafe) static var writeEnd: Int32 = -1
}

/// The signal handler: writes the signal's number into the pipe, nothing else (async-signal-safe).
private func forwardSignal(_ signalNumber: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: signalNumber)
    _ = write(SignalPipe.writeEnd, &byte, 1)
    errno = saved
}

/// The handlers of the fault signals: a signal another process sent goes into the pipe like any
/// stopping signal; one the process raised itself goes on to the handler installed before.
private enum FaultForwarding {
    /// The actions before ours, by signal number: read by the handler, written before it is installed.
    nonisolated(unsafe) static let previous: UnsafeMutablePointer<sigaction> = {
        let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
        actions.initialize(repeating: sigaction(), count: 65)
        return actions
    }()

    /// Saves `signalNumber`'s action and installs ours, on the same alternate stack and mask as the saved one.
    static func install(_ signalNumber: Int32) {
        sigaction(signalNumber, nil, previous + Int(signalNumber))
        var action = previous[Int(signalNumber)]
        action.__sigaction_handler.sa_sigaction = forwardFault
        // The saved flags kept, SA_ONSTACK and SA_NODEFER above all: a stack overflow's SIGSEGV must reach the
        // backtracer on its own stack, and the backtracer reads memory that may fault while it runs in the
        // handler (a fault of a blocked signal kills the process, and leaves swift-backtrace waiting for ever).
        action.sa_flags |= SA_SIGINFO
        sigaction(signalNumber, &action, nil)
    }

    /// Puts the saved action back.
    static func restore(_ signalNumber: Int32) {
        sigaction(signalNumber, previous + Int(signalNumber), nil)
    }
}

/// A fault signal's handler (async-signal-safe): sent by another process (`kill`, `sigqueue`,
/// `tgkill`: a code of 0 or less, and another process's id), it stops the work; raised here, the
/// handler before ours takes it, or the default action ends the process.
private func forwardFault(
    _ signalNumber: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?
) {
    if let info, info.pointee.si_code <= 0, info.pointee._sifields._kill.si_pid != getpid() {
        forwardSignal(signalNumber)
        return
    }
    let previous = FaultForwarding.previous + Int(signalNumber)
    if previous.pointee.sa_flags & SA_SIGINFO != 0, let handler = previous.pointee.__sigaction_handler.sa_sigaction {
        handler(signalNumber, info, context)
        return
    }
    // SIG_DFL is the handler address 0 and SIG_IGN 1 (ignored faults are never taken over).
    let address = previous.pointee.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
    if address > 1, let handler = previous.pointee.__sigaction_handler.sa_handler {
        handler(signalNumber)
        return
    }
    // The default: put it back and raise again. The signal is blocked in its handler, so it is taken on
    // return; a fault of an instruction faults again on return anyway.
    sigaction(signalNumber, previous, nil)
    raise(signalNumber)
}
