import Comparison
import Dispatch
import Foundation
import MandelbrotCore
import Platform
import RenderModel

/// What the server does while someone explores, measured as it happens for the page's live
/// panel (`GET /events`): how late the main queue runs, the threads and memory, tiles sent per
/// second, and at a deep view the serial share of its reference orbit, each put down to the
/// strategy whose tile was rendering at that moment (one tile renders at a time).
///
/// The main queue's heartbeat is mandel's usual probe, running in the server: a timer on the
/// main queue every 2 ms whose lateness shows how long the main queue was held (the `serial`
/// strategy renders there). A tick held up for L records the ticks it held up too (L − 2 ms,
/// L − 4 ms, …), as HdrHistogram corrects for coordinated omission.
final class LiveMonitor: Sendable {
    /// How far back the rolling figures look.
    static let windowNanoseconds: UInt64 = 2_000_000_000
    static let heartbeatNanoseconds: UInt64 = 2_000_000

    private struct Sample {
        let time: UInt64
        let value: Double
    }

    private struct Render {
        let strategy: String
        let start: UInt64
        var end: UInt64?
    }

    /// The latest deep tile that computed its reference orbit: its serial phases and wall time.
    struct DeepFigures: Encodable, Sendable {
        let orbitSeconds: Double
        let tableSeconds: Double
        let wallSeconds: Double
        let serialShare: Double
        let workers: Int
        /// Amdahl's bound on the speed-up of `workers` workers over one, at this serial share.
        let amdahlBound: Double
    }

    private struct State {
        var renders: [Render] = []
        var lateness: [String: [Sample]] = [:]
        var threads: [String: [Sample]] = [:]
        var sent: [String: [UInt64]] = [:]
        var deep: [String: DeepFigures] = [:]
        var worstLateness: [String: Double] = [:]
    }

    private let state = Locked(State())
    private let started = MonotonicClock.nanoseconds()
    private let processStat = Locked(ProcessStat())
    private let samplerQueue = DispatchQueue(label: "mandel.serve.sampler")
    private let timers = Locked<[any DispatchSourceTimer]>([])

    /// Starts the main queue's heartbeat and the threads sampler.
    func start() {
        let heartbeat = DispatchSource.makeTimerSource(flags: .strict, queue: .main)
        let interval = Self.heartbeatNanoseconds
        let nextDue = Locked(MonotonicClock.nanoseconds() + interval)
        heartbeat.schedule(
            deadline: .now() + .nanoseconds(Int(interval)), repeating: .nanoseconds(Int(interval)), leeway: .never)
        heartbeat.setEventHandler { [weak self] in
            let now = MonotonicClock.nanoseconds()
            let due = nextDue.withLock { due -> UInt64 in
                defer { due = Self.nextDue(after: now, from: due, interval: interval) }
                return due
            }
            self?.recordTick(due: due, now: now, interval: interval)
        }
        let sampler = DispatchSource.makeTimerSource(queue: samplerQueue)
        sampler.schedule(deadline: .now(), repeating: .milliseconds(50), leeway: .milliseconds(5))
        sampler.setEventHandler { [weak self] in self?.sampleThreads() }
        timers.withLock { $0 = [heartbeat, sampler] }
        heartbeat.activate()
        sampler.activate()
    }

    /// Stops both timers.
    func stop() {
        timers.withLock { list in
            list.forEach { $0.cancel() }
            list.removeAll()
        }
    }

    private static func nextDue(after now: UInt64, from due: UInt64, interval: UInt64) -> UInt64 {
        now < due ? due : due + ((now - due) / interval + 1) * interval
    }

    /// A tile of `strategy` starts rendering; returns its mark for ``ended(_:)``.
    func began(_ strategy: String) -> UInt64 {
        let now = MonotonicClock.nanoseconds()
        state.withLock { state in
            state.renders.append(Render(strategy: strategy, start: now))
            Self.prune(&state, now: now)
        }
        return now
    }

    /// The tile begun at `mark` stopped rendering (the first call counts).
    func ended(_ mark: UInt64) {
        let now = MonotonicClock.nanoseconds()
        state.withLock { state in
            if let index = state.renders.lastIndex(where: { $0.start == mark }), state.renders[index].end == nil {
                state.renders[index].end = now
            }
        }
    }

    /// A tile of `strategy` was sent.
    func sent(_ strategy: String) {
        let now = MonotonicClock.nanoseconds()
        state.withLock { $0.sent[strategy, default: []].append(now) }
    }

    /// A deep tile of `strategy` computed its reference orbit: `report`'s phases and wall time.
    func deepTile(_ strategy: String, report: RenderReport) {
        guard let phases = report.deepPhases, phases.orbitSeconds > 0 else { return }
        let share = DeepText.serialShare(phases, wallSeconds: report.wallSeconds)
        let workers = max(1, report.plannedWorkers)
        let figures = DeepFigures(
            orbitSeconds: phases.orbitSeconds, tableSeconds: phases.tableSeconds, wallSeconds: report.wallSeconds,
            serialShare: share, workers: workers,
            amdahlBound: DeepText.amdahlBound(serialShare: share, workers: workers))
        state.withLock { $0.deep[strategy] = figures }
    }

    /// The strategy whose tile was rendering at `time`, or nil when none was.
    private static func strategy(at time: UInt64, in renders: [Render]) -> String? {
        renders.last { $0.start <= time && ($0.end ?? .max) >= time }?.strategy
    }

    private func recordTick(due: UInt64, now: UInt64, interval: UInt64) {
        let late = now > due ? now - due : 0
        state.withLock { state in
            // The ticks this one held up were due every interval after it, each less late.
            var lateness = late
            var tickDue = due
            while true {
                if let strategy = Self.strategy(at: tickDue, in: state.renders) {
                    state.lateness[strategy, default: []].append(Sample(time: now, value: Double(lateness) / 1e9))
                    state.worstLateness[strategy] = max(state.worstLateness[strategy] ?? 0, Double(lateness) / 1e9)
                }
                guard lateness >= interval else { break }
                lateness -= interval
                tickDue += interval
            }
        }
    }

    private func sampleThreads() {
        guard let snapshot = processStat.withLock({ $0?.read() }) else { return }
        let now = MonotonicClock.nanoseconds()
        state.withLock { state in
            if let strategy = Self.strategy(at: now, in: state.renders) {
                state.threads[strategy, default: []].append(Sample(time: now, value: Double(snapshot.threads)))
            }
        }
    }

    private static func prune(_ state: inout State, now: UInt64) {
        let since = now > windowNanoseconds ? now - windowNanoseconds : 0
        state.renders.removeAll { ($0.end ?? .max) < since }
        for key in state.lateness.keys { state.lateness[key]!.removeAll { $0.time < since } }
        for key in state.threads.keys { state.threads[key]!.removeAll { $0.time < since } }
        for key in state.sent.keys { state.sent[key]!.removeAll { $0 < since } }
    }

    /// The panel's figures now.
    func snapshot(stats: ServerStats) -> Data {
        let now = MonotonicClock.nanoseconds()
        let process = ProcessSnapshot.now()
        let cpu = CPUTime.now().total
        let figures = state.withLock { state -> LiveJSON in
            Self.prune(&state, now: now)
            let rendering = Self.strategy(at: now, in: state.renders)
            let seconds = Double(Self.windowNanoseconds) / 1e9
            var strategies: [String: LiveJSON.Strategy] = [:]
            for name in stats.strategyNames {
                let lateness = state.lateness[name, default: []].map(\.value).sorted()
                strategies[name] = LiveJSON.Strategy(
                    tilesPerSecond: Double(state.sent[name, default: []].count) / seconds,
                    mainQueueLateSeconds: .init(
                        p99: Self.percentile(lateness, 0.99), max: lateness.last,
                        worst: state.worstLateness[name]),
                    threads: state.threads[name, default: []].map { Int($0.value) }.max(),
                    deep: state.deep[name])
            }
            return LiveJSON(
                uptimeSeconds: Double(now - started) / 1e9, windowSeconds: seconds, rendering: rendering,
                threads: process.threads, residentBytes: process.residentBytes, cpuSeconds: cpu,
                strategies: strategies, totals: stats.totals())
        }
        return Data(JSONOutput.encode(figures))
    }

    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double? {
        sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}

/// The JSON of one `GET /events` message (documented in docs/options.md).
struct LiveJSON: Encodable {
    struct Lateness: Encodable {
        /// Over the last window, while this strategy rendered.
        @OrNull var p99: Double?
        @OrNull var max: Double?
        /// The most since the server started.
        @OrNull var worst: Double?
    }

    struct Strategy: Encodable {
        let tilesPerSecond: Double
        let mainQueueLateSeconds: Lateness
        /// The most threads seen while this strategy rendered, in the last window.
        @OrNull var threads: Int?
        @OrNull var deep: LiveMonitor.DeepFigures?
    }

    let uptimeSeconds: Double
    let windowSeconds: Double
    /// The strategy whose tile renders now.
    @OrNull var rendering: String?
    let threads: Int
    let residentBytes: Int
    let cpuSeconds: Double
    let strategies: [String: Strategy]
    /// `/stats`'s counts and cancel latencies, per strategy.
    let totals: [String: ServerStats.StrategyJSON]
}
