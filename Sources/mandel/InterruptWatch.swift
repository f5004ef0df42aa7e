import Dispatch
import Foundation
import MandelbrotCore
import Synchronization

/// Turns Ctrl-C (SIGINT) and SIGTERM into a cancelled render, the way the seeds
/// treat an app sent to the background.
///
/// SIGINT cancels at once. SIGTERM is a polite request: like a backgrounded
/// app's request for time to finish, the work in flight may run to the end
/// within a grace period and its output is written; if the grace runs out,
/// the work is cancelled cleanly. The signals are handled on their own serial
/// queue, not the main queue, so they are seen even while the `serial`
/// strategy keeps the main queue busy. If the workers have not stopped within
/// a short deadline after a cancel, the process exits anyway: no output file
/// exists before the work is finished.
final class InterruptWatch: @unchecked Sendable {
    // @unchecked: the signal sources are the only non-Sendable members, and a
    // dispatch source may be cancelled from any thread; the rest is atomic.

    /// How long the workers get to notice a cancel before the process exits regardless.
    static let exitDeadline: DispatchTimeInterval = .milliseconds(400)

    private let queue = DispatchQueue(label: "mandel.signals")
    private var sources: [any DispatchSourceSignal] = []
    private let cancellation: CancellationFlag
    private let rendering = Atomic<Bool>(true)
    private let stopSignal = Atomic<Int32>(0)
    private let terminationRequested = Atomic<Bool>(false)
    private let emergencyRemovals = Mutex<[String]>([])

    /// Starts watching SIGINT and SIGTERM; `cancellation` is set when the work must stop.
    ///
    /// - Parameter grace: Seconds the work may still take after SIGTERM.
    init(cancellation: CancellationFlag, grace: Double = 5) {
        self.cancellation = cancellation
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            // The handlers hold self, and self holds the sources: stop() cancels
            // them, which releases the handlers and breaks the cycle.
            source.setEventHandler {
                if signalNumber == SIGINT {
                    self.stop(because: SIGINT)
                } else if !self.terminationRequested.exchange(true, ordering: .relaxed) {
                    self.queue.asyncAfter(deadline: .now() + grace) { self.stop(because: SIGTERM) }
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Whether the work must stop: Ctrl-C, or SIGTERM whose grace has run out.
    var wasInterrupted: Bool { stopSignal.load(ordering: .relaxed) != 0 }

    /// Whether SIGTERM arrived (the work may still be finishing within its grace).
    var wasAskedToTerminate: Bool { terminationRequested.load(ordering: .relaxed) }

    /// The exit status for a stop: 130 after SIGINT, 143 after SIGTERM (128 + the signal).
    var exitStatus: Int32 { 128 + stopSignal.load(ordering: .relaxed) }

    /// Files to remove if the process must exit before the workers stop:
    /// the temporary files of outputs opened before the render.
    func removeOnEmergencyExit(_ paths: [String?]) {
        emergencyRemovals.withLock { $0 += paths.compactMap { $0 } }
    }

    /// Marks the end of the render: from now on a stop is handled by whoever writes the output.
    func renderFinished() { rendering.store(false, ordering: .relaxed) }

    /// Stops watching and restores the default actions.
    func stop() {
        sources.forEach { $0.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    private func stop(because signalNumber: Int32) {
        guard stopSignal.compareExchange(expected: 0, desired: signalNumber, ordering: .relaxed).exchanged else { return }
        cancellation.cancel()
        queue.asyncAfter(deadline: .now() + Self.exitDeadline) {
            if self.rendering.load(ordering: .relaxed) {
                let erase = ProgressMeter.standardErrorIsTerminal ? "\r\u{1B}[K" : ""
                FileHandle.standardError.write(Data("\(erase)mandel: \(Self.describe(signalNumber))\n".utf8))
                // unlink is safe while another thread still writes the file: nothing is left behind.
                self.emergencyRemovals.withLock { $0.forEach { unlink($0) } }
                exit(128 + signalNumber)
            }
        }
    }

    /// The one line printed when a signal stops the work.
    static func describe(_ signalNumber: Int32) -> String {
        signalNumber == SIGTERM ? "terminated: the grace period ran out; nothing was written" : "interrupted"
    }

    /// The one line for the current stop.
    var stopMessage: String { Self.describe(stopSignal.load(ordering: .relaxed)) }
}
