import Dispatch
public import Histogram
import Platform

/// A timer on the main queue that measures how late each of its ticks runs: how
/// responsive the main queue (a user interface's thread) stays while a render runs.
///
/// Lateness is when a tick ran minus when it was due. A main queue that is busy for a
/// long time delays one tick by that long, and the ticks it skipped meanwhile are
/// counted too, as HdrHistogram corrects for "coordinated omission": a 50 ms stall at a
/// 2 ms interval records 50, 48, 46 … ms, the lateness every skipped tick would have had.
@MainActor
public final class MainQueueHeartbeat {
    /// One 60 Hz display frame, in nanoseconds.
    public static let frameNanoseconds: UInt64 = 16_666_667

    private let interval: UInt64
    private var timer: (any DispatchSourceTimer)?
    private var startTime: UInt64 = 0
    private var nextDue: UInt64 = 0
    private var histogram = MainQueueLateness.emptyHistogram()
    private var ticks = 0
    private var missedFrames = 0
    private var frameMaxima: [UInt32] = []

    /// Prepares a heartbeat that ticks every `intervalNanoseconds`.
    public init(intervalNanoseconds: UInt64) {
        precondition(intervalNanoseconds > 0, "a heartbeat needs an interval")
        interval = intervalNanoseconds
    }

    /// Starts ticking; call on the main queue.
    public func start() {
        dispatchPrecondition(condition: .onQueue(.main))
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: .main)
        startTime = MonotonicClock.nanoseconds()
        nextDue = startTime + interval
        timer.schedule(
            deadline: .now() + .nanoseconds(Int(interval)), repeating: .nanoseconds(Int(interval)), leeway: .never)
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.tick() }
        }
        self.timer = timer
        timer.activate()
    }

    private func tick() {
        let now = MonotonicClock.nanoseconds()
        let lateness = now > nextDue ? now - nextDue : 0
        record(lateness: lateness)
        ticks += 1
        let frame = countMissedFrames(before: now)
        // The most lateness seen in each frame: a series for the trace, bounded by the frame rate.
        let latenessMicroseconds = UInt32(clamping: lateness / 1000)
        if frameMaxima.count <= frame {
            frameMaxima.append(contentsOf: repeatElement(0, count: frame + 1 - frameMaxima.count))
        }
        frameMaxima[frame] = Swift.max(frameMaxima[frame], latenessMicroseconds)
        // The next tick due after now: a timer that was held up fires once for all the ticks it missed.
        nextDue = startTime + ((now - startTime) / interval + 1) * interval
    }

    /// Records a tick's lateness (and, by HdrHistogram's correction, the ticks it held up).
    private func record(lateness nanoseconds: UInt64) {
        histogram.recordCorrectedValue(
            Swift.min(nanoseconds / 1000, MainQueueLateness.highestMicroseconds), expectedInterval: interval / 1000)
    }

    /// Counts the whole frames spent waiting for the tick due at `nextDue`, which ran (or the
    /// heartbeat stopped) at `now`, and returns the frame `now` falls in. A frame with no tick
    /// in it is missed only if a tick was due before it began: with an interval longer than a
    /// frame, most frames have none due.
    private func countMissedFrames(before now: UInt64) -> Int {
        let frame = Int((now - startTime) / Self.frameNanoseconds)
        if now > nextDue {
            let dueFrame = Int((nextDue - startTime) / Self.frameNanoseconds)
            if frame > dueFrame + 1 { missedFrames += frame - dueFrame - 1 }
        }
        return frame
    }

    /// Stops ticking and returns what was measured; call on the main queue.
    public func stop() -> MainQueueLateness {
        dispatchPrecondition(condition: .onQueue(.main))
        timer?.cancel()
        timer = nil
        let now = MonotonicClock.nanoseconds()
        // A stall that lasts until the end is measured too: the tick due at nextDue has not run.
        if now > nextDue { record(lateness: now - nextDue) }
        _ = countMissedFrames(before: now)
        return MainQueueLateness(
            histogram: histogram, ticks: ticks, missedFrames: missedFrames, startNanoseconds: startTime,
            frameMaximaMicroseconds: frameMaxima)
    }
}

/// How late the main queue ran its heartbeat's ticks during one or more renders.
public struct MainQueueLateness: Sendable {
    /// The most lateness the histogram keeps apart: an hour, in microseconds.
    static let highestMicroseconds: UInt64 = 3_600_000_000

    static func emptyHistogram() -> Histogram<UInt64> {
        Histogram<UInt64>(highestTrackableValue: highestMicroseconds, numberOfSignificantValueDigits: .three)
    }

    /// Every tick's lateness (and the skipped ticks'), in microseconds.
    public private(set) var histogram: Histogram<UInt64>
    /// Ticks that ran.
    public private(set) var ticks: Int
    /// Whole 60 Hz frames spent waiting for a tick that was due: frames a user interface could not have drawn.
    public private(set) var missedFrames: Int
    /// When the heartbeat started, in monotonic nanoseconds (of the last run, once merged).
    public let startNanoseconds: UInt64
    /// The most lateness in each frame since the start, in microseconds (of the last run, once merged).
    public let frameMaximaMicroseconds: [UInt32]

    /// Lateness at `percentile` (0…100), in seconds.
    public func seconds(atPercentile percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1e6
    }

    /// Whether any tick was due while the heartbeat ran (one that never ran counts, late until
    /// the stop): with none, there is no lateness to report, which is not zero lateness.
    public var isMeasured: Bool { histogram.totalCount > 0 }

    /// The median lateness, in seconds.
    public var p50: Double { seconds(atPercentile: 50) }
    /// The 99th percentile, in seconds.
    public var p99: Double { seconds(atPercentile: 99) }
    /// The largest lateness, in seconds.
    public var max: Double { Double(histogram.max) / 1e6 }

    /// This run's measurements with `later`'s added: the distribution of both, and the series of the later.
    public func merged(with later: MainQueueLateness) -> MainQueueLateness {
        var histogram = self.histogram
        histogram.add(later.histogram)
        return MainQueueLateness(
            histogram: histogram, ticks: ticks + later.ticks, missedFrames: missedFrames + later.missedFrames,
            startNanoseconds: later.startNanoseconds, frameMaximaMicroseconds: later.frameMaximaMicroseconds)
    }
}
