import Platform
import Synchronization

/// A one-way switch that asks a render to stop, readable from any thread.
///
/// Workers poll ``isCancelled`` between segments of rows; strategies that have a
/// native cancel (`Thread.cancel()`, `cancelAllOperations()`, task cancellation)
/// register it through ``RenderWork/onCancel(_:)``, which removes it again when
/// the render completes, so a long-lived flag (one per `compare`) never keeps
/// old renders alive.
public final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let cancelTime = Atomic<UInt64>(0)
    private let nextRegistration = Atomic<Int>(0)
    private let handlers = Locked<[Int: @Sendable () -> Void]?>([:])

    /// Creates a flag that is not set.
    public init() {}

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// When ``cancel()`` was first called, in monotonic nanoseconds; nil before.
    public var cancelledAt: UInt64? {
        let time = cancelTime.load(ordering: .relaxed)
        return time == 0 ? nil : time
    }

    /// Sets the flag and runs every registered handler once, on the calling thread.
    public func cancel() {
        _ = cancelTime.compareExchange(expected: 0, desired: MonotonicClock.nanoseconds(), ordering: .relaxed)
        cancelled.store(true, ordering: .relaxed)
        let pending = handlers.withLock { table in
            defer { table = nil }
            return table.map { Array($0.values) } ?? []
        }
        pending.forEach { $0() }
    }

    /// Registers `handler` to run when the flag is set, or runs it now if it already is.
    ///
    /// - Returns: A registration to pass to ``removeHandler(_:)``, or nil if the handler already ran.
    @discardableResult
    public func onCancel(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let registration = nextRegistration.add(1, ordering: .relaxed).oldValue
        let registered = handlers.withLock { table -> Bool in
            guard table != nil else { return false }
            table![registration] = handler
            return true
        }
        guard registered else {
            handler()
            return nil
        }
        return registration
    }

    /// Forgets a handler (and everything it captured) that is no longer needed.
    public func removeHandler(_ registration: Int) {
        _ = handlers.withLock { $0?.removeValue(forKey: registration) }
    }
}

/// A cancel planned for a set time after a render starts (`--cancel-after`): the render says
/// when it started, and when all its work is done, after which the cancel must not come.
public protocol PlannedStop: AnyObject, Sendable {
    /// The render started at `nanoseconds` (``MonotonicClock``): the planned time counts from here.
    func start(atNanoseconds nanoseconds: UInt64)
    /// The render's work is done: the cancel must not come now. When this returns, a cancel
    /// already under way has set its flag.
    func disarm()
}
