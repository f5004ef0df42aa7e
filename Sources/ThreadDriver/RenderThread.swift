// Subclassing Thread compiles on Linux only when CoreFoundation is imported too.
import CoreFoundation
import Dispatch
import Foundation
import MandelbrotCore
import Synchronization

/// A worker thread: renders its tiles, then hands back to the main queue at its exit point.
final class RenderThread: Thread {
    private let arguments: WorkerArguments
    // corelibs Foundation keeps Thread's cancelled flag in a plain Bool, so
    // cancel() from another thread races with isCancelled on this one (a
    // ThreadSanitizer report). An atomic makes the same API safe.
    private let cancelled = Atomic<Bool>(false)

    init(arguments: WorkerArguments) {
        self.arguments = arguments
        super.init()
    }

    override func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    override var isCancelled: Bool {
        cancelled.load(ordering: .relaxed)
    }

    override func main() {
        // A name set before start() is lost on Linux, so the thread names itself.
        Thread.current.name = "mandel.worker.\(arguments.worker)"
        // Between tiles the thread also honours its own cancel, as the book's threads do.
        arguments.work.renderShare(of: arguments.worker) { !isCancelled }
        // The Swift analogue of performSelectorOnMainThread: the last thing this thread does.
        DispatchQueue.main.async(execute: arguments.exitOnMainQueue)
    }
}
