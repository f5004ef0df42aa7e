import Synchronization

/// A one-way switch that asks a render to stop, readable from any thread.
///
/// Workers poll ``isCancelled`` between rows; strategies that have a native
/// cancel (`Thread.cancel()`, `cancelAllOperations()`, task cancellation)
/// register it with ``onCancel(_:)``.
public final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let handlers = Mutex<[@Sendable () -> Void]?>([])

    /// Creates a flag that is not set.
    public init() {}

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Sets the flag and runs every registered handler once, on the calling thread.
    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
        let pending = handlers.withLock { list in
            defer { list = nil }
            return list ?? []
        }
        pending.forEach { $0() }
    }

    /// Registers `handler` to run when the flag is set; runs it now if it already is.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let registered = handlers.withLock { list -> Bool in
            guard list != nil else { return false }
            list!.append(handler)
            return true
        }
        if !registered { handler() }
    }
}
