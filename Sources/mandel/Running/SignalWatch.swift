import Dispatch
import ImageFiles
import MandelbrotCore
import Platform
import Synchronization

/// Turns every signal that would end the process into a clean stop: the work is
/// cancelled, no file is left behind, and the process exits with 128 + the signal.
///
/// SIGINT, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1 and SIGUSR2 stop at once. SIGTERM
/// is a polite request, like the book's app asked to move to the background:
/// the work in flight may finish within a grace period and be written; if the
/// grace runs out, it is cancelled cleanly. A signal the process inherited as
/// ignored (`nohup` ignores SIGHUP; a shell ignores SIGINT and SIGQUIT for
/// background jobs) stays ignored. SIGPIPE and SIGXFSZ are turned into write
/// errors at startup (see ``ProcessStart``).
///
/// The signals are handled on a serial queue of their own, not the main queue,
/// so they are seen even while the `serial` strategy keeps the main queue busy.
/// If the process has not exited within a short deadline after a stop (a
/// worker deep in a row, a write blocked on a full pipe), it exits anyway,
/// after removing every temporary file.
final class SignalWatch: @unchecked Sendable {
    // @unchecked: the signal sources are the only non-Sendable members; they are
    // created in init and cancelled in stop(), and a dispatch source may be
    // cancelled from any thread. The rest is atomic.

    /// The signals that stop the work.
    static let stoppingSignals = [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGUSR1, SIGUSR2]
    /// How long the work gets to stop after a signal before the process exits regardless.
    static let exitDeadline: DispatchTimeInterval = .milliseconds(400)

    /// The flag every render of this command watches.
    let cancellation = CancellationFlag()
    private let queue = DispatchQueue(label: "mandel.signals")
    private var sources: [any DispatchSourceSignal] = []
    private let stopSignal = Atomic<Int32>(0)
    /// Files put in place on purpose before the run ended (a preview), which a stop leaves where they are.
    private let placedEarly = Locked<[String]>([])
    private let terminationRequested = Atomic<Bool>(false)

    /// Starts watching; call before any output is opened.
    ///
    /// - Parameter grace: Seconds the work may still take after SIGTERM.
    init(grace: Double) {
        // resume() arms a source later, on Dispatch's own thread; a signal that came before
        // would be lost (it is ignored already). Wait until every source is registered.
        let registered = DispatchGroup()
        for signalNumber in Self.stoppingSignals where !Self.isInheritedAsIgnored(signalNumber) {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            // The handlers hold self, and self holds the sources: stop() cancels
            // them, which releases the handlers and breaks the cycle.
            source.setEventHandler {
                if signalNumber != SIGTERM {
                    self.stop(because: signalNumber)
                } else if !self.terminationRequested.exchange(true, ordering: .relaxed) {
                    self.queue.asyncAfter(deadline: .now() + grace) { self.stop(because: SIGTERM) }
                }
            }
            source.resume()
            sources.append(source)
        }
        if registered.wait(timeout: .now() + 2) == .timedOut {
            ProcessStart.writeError(
                "warning: the signal handlers took more than 2 s to start; a signal now may not clean up")
        }
    }

    private static func isInheritedAsIgnored(_ signalNumber: Int32) -> Bool {
        guard [SIGHUP, SIGINT, SIGQUIT].contains(signalNumber) else { return false }
        var current = sigaction()
        sigaction(signalNumber, nil, &current)
        // SIG_IGN is the handler address 1; handlers are C function pointers, not comparable in Swift.
        return current.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) } == 1
    }

    /// The signal that stopped the work, if one did.
    var stoppedBy: Int32? {
        let signal = stopSignal.load(ordering: .relaxed)
        return signal == 0 ? nil : signal
    }

    /// Whether SIGTERM arrived (the work may still be finishing within its grace).
    var wasAskedToTerminate: Bool { terminationRequested.load(ordering: .relaxed) }

    /// Stops watching and restores the default actions.
    func stop() {
        sources.forEach { $0.cancel() }
        for signalNumber in Self.stoppingSignals where !Self.isInheritedAsIgnored(signalNumber) {
            signal(signalNumber, SIG_DFL)
        }
    }

    private func stop(because signalNumber: Int32) {
        guard stopSignal.compareExchange(expected: 0, desired: signalNumber, ordering: .relaxed).exchanged else {
            return
        }
        cancellation.cancel()
        queue.asyncAfter(deadline: .now() + Self.exitDeadline) {
            // Still here: the normal clean-up is stuck. Remove what it would have removed, and go.
            let erase = Terminal.standardErrorIsTerminal ? "\r\u{1B}[K" : ""
            ProcessStart.writeError(
                erase.isEmpty ? self.stopMessage : erase + "mandel: " + self.stopMessage)
            TemporaryFiles.removeAll()
            ProcessStart.exit(128 + signalNumber)
        }
    }

    /// The one line printed when a signal stops the work.
    static func describe(_ signalNumber: Int32, placedEarly: [String] = []) -> String {
        let name =
            switch signalNumber {
            case SIGINT: "interrupted"
            case SIGTERM: "terminated: the grace period ran out"
            case SIGHUP: "hung up (SIGHUP)"
            case SIGQUIT: "quit (SIGQUIT)"
            case SIGALRM: "stopped by SIGALRM"
            case SIGUSR1: "stopped by SIGUSR1"
            case SIGUSR2: "stopped by SIGUSR2"
            default: "stopped by signal \(signalNumber)"
            }
        guard !placedEarly.isEmpty else { return name + "; the work was cancelled and no file was left" }
        return name + "; the work was cancelled, and only "
            + placedEarly.map(Display.path).joined(separator: ", ") + " was left (put in place when it was ready)"
    }

    /// Notes a file put in place before the run's end, for the stop message.
    func placedEarly(_ path: String) { placedEarly.withLock { $0.append(path) } }

    /// The line for the current stop.
    var stopMessage: String {
        Self.describe(stopSignal.load(ordering: .relaxed), placedEarly: placedEarly.withLock { $0 })
    }

    /// The exit status for the current stop: 128 + the signal.
    var exitStatus: Int32 { 128 + stopSignal.load(ordering: .relaxed) }
}
