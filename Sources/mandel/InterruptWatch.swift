import Dispatch
import Foundation
import MandelbrotCore
import Synchronization

/// Turns Ctrl-C (SIGINT) into a cancelled render.
///
/// The signal is handled on its own serial queue rather than the main queue,
/// so it is seen even while the `serial` strategy keeps the main queue busy.
/// If the workers have not stopped within the grace below, the process exits
/// with 130 anyway: no output file exists before the render is finished.
final class InterruptWatch: @unchecked Sendable {
    // @unchecked: the signal source is the only non-Sendable member, and a
    // dispatch source may be cancelled from any thread; the rest is atomic.
    /// How long the workers get to notice the cancel before the process exits regardless.
    static let exitDeadline: DispatchTimeInterval = .milliseconds(400)

    private let source: any DispatchSourceSignal
    private let rendering = Atomic<Bool>(true)
    private let interrupted = Atomic<Bool>(false)

    /// Starts watching for SIGINT; `cancellation` is set when it arrives.
    init(cancellation: CancellationFlag) {
        let queue = DispatchQueue(label: "mandel.signals")
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: queue)
        // The handler holds self, and self holds the source: stop() cancels
        // the source, which releases the handler and breaks the cycle.
        source.setEventHandler {
            self.interrupted.store(true, ordering: .relaxed)
            cancellation.cancel()
            queue.asyncAfter(deadline: .now() + Self.exitDeadline) {
                if self.rendering.load(ordering: .relaxed) {
                    FileHandle.standardError.write(Data("mandel: interrupted\n".utf8))
                    exit(130)
                }
            }
        }
        source.resume()
    }

    /// Whether Ctrl-C has been pressed.
    var wasInterrupted: Bool { interrupted.load(ordering: .relaxed) }

    /// Marks the end of the render: from now on an interrupt is handled by whoever writes the output.
    func renderFinished() { rendering.store(false, ordering: .relaxed) }

    /// Stops watching and restores the default action.
    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
