import Dispatch
public import MandelbrotCore
import Platform
import Synchronization

/// Cancels a run a set time after it starts, from a thread of its own (the main queue may be
/// busy, and a pool thread would be one the measured mechanism could have used).
public final class PlannedCancel: Sendable {
    private enum State: Int { case armed, fired, disarmed }
    private let state = Atomic<Int>(State.armed.rawValue)
    private let wake = DispatchSemaphore(value: 0)
    private let cpuAtCancel = Locked<UInt64?>(nil)

    /// Arms a cancel of `flag` in `nanoseconds`; nil if no thread could be started for it.
    public init?(after nanoseconds: UInt64, of flag: CancellationFlag) {
        let started = SystemThread.start { [self] in
            guard wake.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .timedOut,
                state.compareExchange(
                    expected: State.armed.rawValue, desired: State.fired.rawValue, ordering: .relaxed
                ).exchanged
            else { return }
            cpuAtCancel.withLock { $0 = ProcessorClock.nanoseconds() }
            flag.cancel()
        }
        guard started else { return nil }
    }

    /// Makes sure the cancel does not come after all, and ends its thread.
    public func disarm() {
        _ = state.compareExchange(
            expected: State.armed.rawValue, desired: State.disarmed.rawValue, ordering: .relaxed)
        wake.signal()
    }

    /// The process's processor time (``ProcessorClock``) when the cancel was requested; nil if it was not.
    public var processorNanosecondsAtCancel: UInt64? { cpuAtCancel.withLock { $0 } }
}
