import DeepShim
import Platform
import Synchronization

/// How far the serial part of a deep render has gone, for a progress meter: the reference
/// orbit's steps while it is computed (the table is built beside it), then when the pixels began.
///
/// At 10¹⁰⁸⁶ the orbit is most of the wall time and no tile finishes during it, so a meter
/// that knew only tiles would show nothing moving, and then a rate that counts the orbit's
/// seconds as the pixels' (an estimate of the time left several times too long).
/// The render writes, and any thread reads.
public final class SerialProgress: @unchecked Sendable {
    // @unchecked: `steps` is written by the orbit's C loop and read here with atomic
    // stores and loads (deep_reference_orbit, deep_steps_taken); the rest is Atomic.

    /// The phases of a deep render, in their order.
    public enum Phase: Int, Sendable {
        case orbit, pixels
    }

    /// The most steps the orbit can take: the iteration limit (it stops sooner where the reference escapes).
    public let stepLimit: Int
    let steps: UnsafeMutablePointer<UInt64>
    private let phaseValue = Atomic<Int>(Phase.orbit.rawValue)
    private let pixelsStart = Atomic<UInt64>(0)

    public init(stepLimit: Int) {
        self.stepLimit = stepLimit
        steps = .allocate(capacity: 1)
        steps.initialize(to: 0)
    }

    deinit { steps.deallocate() }

    /// What a meter shows, read at once.
    public struct Snapshot: Sendable, Hashable {
        public var phase: Phase
        /// The orbit's steps so far (all of them once the orbit is done).
        public var orbitSteps: Int
        public var stepLimit: Int
        /// Seconds since the pixels began; nil before.
        public var pixelSeconds: Double?

        public init(phase: Phase, orbitSteps: Int, stepLimit: Int, pixelSeconds: Double? = nil) {
            self.phase = phase
            self.orbitSteps = orbitSteps
            self.stepLimit = stepLimit
            self.pixelSeconds = pixelSeconds
        }
    }

    public func snapshot() -> Snapshot {
        let phase = Phase(rawValue: phaseValue.load(ordering: .acquiring)) ?? .orbit
        let start = pixelsStart.load(ordering: .relaxed)
        return Snapshot(
            phase: phase, orbitSteps: Int(deep_steps_taken(steps)), stepLimit: stepLimit,
            pixelSeconds: phase == .pixels && start > 0 ? MonotonicClock.seconds(since: start) : nil)
    }

    func enter(_ phase: Phase) {
        if phase == .pixels { pixelsStart.store(MonotonicClock.nanoseconds(), ordering: .relaxed) }
        phaseValue.store(phase.rawValue, ordering: .releasing)
    }
}
