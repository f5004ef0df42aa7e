import Dispatch
public import MandelbrotCore
import Platform
import Synchronization

/// Cancels a run a set time after it starts, from a thread of its own (the main queue may be
/// busy, and a pool thread would be one the measured mechanism could have used).
///
/// The thread is started before the run, and the time counts from the run's own start
/// (``start(atNanoseconds:)``), so the cancel never comes earlier than asked; once the run's
/// work is done (``disarm()``) it never comes at all.
public final class PlannedCancel: PlannedStop {
    private enum State: Int { case armed, firing, fired, disarmed }
    private let state = Atomic<Int>(State.armed.rawValue)
    private let delay: UInt64
    private let due = Atomic<UInt64>(0)
    private let wake = DispatchSemaphore(value: 0)
    private let firedSignal = DispatchSemaphore(value: 0)
    private let cpuAtCancel = Locked<UInt64?>(nil)

    /// Arms a cancel of `flag` `nanoseconds` after the run's start; nil if no thread could be started for it.
    public init?(after nanoseconds: UInt64, of flag: CancellationFlag) {
        delay = nanoseconds
        let started = SystemThread.start { [self] in
            // Until the run starts (or is over before it started).
            wake.wait()
            guard state.load(ordering: .acquiring) == State.armed.rawValue else { return }
            let due = due.load(ordering: .acquiring)
            while true {
                let now = MonotonicClock.nanoseconds()
                guard now < due else { break }
                if wake.wait(timeout: .now() + .nanoseconds(Int(due - now))) == .success { return }
            }
            guard
                state.compareExchange(
                    expected: State.armed.rawValue, desired: State.firing.rawValue, ordering: .acquiringAndReleasing
                ).exchanged
            else { return }
            cpuAtCancel.withLock { $0 = ProcessorClock.nanoseconds() }
            flag.cancel()
            state.store(State.fired.rawValue, ordering: .releasing)
            firedSignal.signal()
        }
        guard started else { return nil }
    }

    /// The run started at `nanoseconds` (``MonotonicClock``): the cancel comes `after` that.
    public func start(atNanoseconds nanoseconds: UInt64) {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(delay)
        due.store(overflow ? .max : sum, ordering: .releasing)
        wake.signal()
    }

    /// Makes sure the cancel does not come after all, and ends its thread; a cancel already
    /// under way has set its flag when this returns.
    public func disarm() {
        let (exchanged, original) = state.compareExchange(
            expected: State.armed.rawValue, desired: State.disarmed.rawValue, ordering: .acquiringAndReleasing)
        if exchanged {
            wake.signal()
        } else if original == State.firing.rawValue {
            firedSignal.wait()
            firedSignal.signal()
        }
    }

    /// The process's processor time (``ProcessorClock``) when the cancel was requested; nil if it was not.
    public var processorNanosecondsAtCancel: UInt64? { cpuAtCancel.withLock { $0 } }
}
