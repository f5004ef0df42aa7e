import Comparison
import Foundation
import Platform

/// What the server's tiles cost, strategy by strategy: `GET /stats` (documented in docs/options.md).
///
/// A tile is requested once it passes every check; then it is refused (the line was full),
/// sent, cancelled (its client went away while it waited or rendered), wasted (rendered to the
/// end, then not sent: its client went away meanwhile) or failed. Its render's processor time
/// counts in `cpu_seconds`, and also in `cpu_seconds_wasted` when nobody saw the tile.
final class ServerStats: Sendable {
    private struct Counters {
        var requested = 0
        var sent = 0
        var refused = 0
        var cancelledQueued = 0
        var cancelledRendering = 0
        var wasted = 0
        var failed = 0
        var cpuSeconds = 0.0
        var cpuSecondsWasted = 0.0
        var cpuSecondsAfterCancel = 0.0
        var renderSeconds: [Double] = []
        var cancelLatencies: [Double] = []
    }

    /// How a tile ended.
    enum Ending {
        case sent(cpuSeconds: Double, renderSeconds: Double)
        case refused
        case cancelledWaiting
        case cancelledRendering(cpuSeconds: Double, afterCancelSeconds: Double, latencySeconds: Double)
        case wasted(cpuSeconds: Double)
        case failed(cpuSeconds: Double)
    }

    private let counters = Locked<[String: Counters]>([:])
    private let started = MonotonicClock.nanoseconds()
    /// The most latencies and render times kept per strategy (the newest).
    private static let kept = 10_000

    /// The strategies counted, in the catalog's order.
    let strategyNames: [String]

    init(strategies: [String]) {
        strategyNames = strategies
        counters.withLock { table in
            for name in strategies { table[name] = Counters() }
        }
    }

    /// Counts a tile that passed its checks.
    func requested(_ strategy: String) { counters.withLock { $0[strategy, default: Counters()].requested += 1 } }

    /// Counts how a tile ended.
    func ended(_ strategy: String, _ ending: Ending) {
        counters.withLock { table in
            var entry = table[strategy, default: Counters()]
            switch ending {
            case .sent(let cpu, let seconds):
                entry.sent += 1
                entry.cpuSeconds += cpu
                Self.append(seconds, to: &entry.renderSeconds)
            case .refused: entry.refused += 1
            case .cancelledWaiting: entry.cancelledQueued += 1
            case .cancelledRendering(let cpu, let afterCancel, let latency):
                entry.cancelledRendering += 1
                entry.cpuSecondsAfterCancel += afterCancel
                entry.cpuSeconds += cpu
                entry.cpuSecondsWasted += cpu
                Self.append(latency, to: &entry.cancelLatencies)
            case .wasted(let cpu):
                entry.wasted += 1
                entry.cpuSeconds += cpu
                entry.cpuSecondsWasted += cpu
            case .failed(let cpu):
                entry.failed += 1
                entry.cpuSeconds += cpu
                entry.cpuSecondsWasted += cpu
            }
            table[strategy] = entry
        }
    }

    private static func append(_ value: Double, to list: inout [Double]) {
        if list.count >= kept { list.removeFirst(list.count - kept + 1) }
        list.append(value)
    }

    /// Each strategy's counts, CPU and latencies so far.
    func totals() -> [String: StrategyJSON] {
        counters.withLock { $0 }.mapValues { entry in
            StrategyJSON(
                tilesRequested: entry.requested, tilesSent: entry.sent, tilesRefused: entry.refused,
                tilesCancelled: entry.cancelledQueued + entry.cancelledRendering,
                tilesCancelledQueued: entry.cancelledQueued, tilesCancelledRendering: entry.cancelledRendering,
                tilesWasted: entry.wasted, tilesFailed: entry.failed, cpuSeconds: entry.cpuSeconds,
                cpuSecondsWasted: entry.cpuSecondsWasted, cpuSecondsAfterCancel: entry.cpuSecondsAfterCancel,
                cancelLatencySeconds: Percentiles(entry.cancelLatencies),
                renderSeconds: Percentiles(entry.renderSeconds))
        }
    }

    /// The JSON of `GET /stats`.
    func json(queue: (rendering: Int, waiting: Int), capacity: Int, slots: Int, references: (Int, Int, Int)) -> Data {
        let body = StatsJSON(
            uptimeSeconds: MonotonicClock.seconds(since: started), strategies: totals(),
            queue: QueueJSON(rendering: queue.rendering, waiting: queue.waiting, capacity: capacity, slots: slots),
            references: ReferencesJSON(kept: references.0, found: references.1, computed: references.2))
        return Data(JSONOutput.encode(body))
    }

    private struct StatsJSON: Encodable {
        let uptimeSeconds: Double
        let strategies: [String: StrategyJSON]
        let queue: QueueJSON
        let references: ReferencesJSON
    }

    struct StrategyJSON: Encodable {
        let tilesRequested: Int
        let tilesSent: Int
        let tilesRefused: Int
        let tilesCancelled: Int
        let tilesCancelledQueued: Int
        let tilesCancelledRendering: Int
        let tilesWasted: Int
        let tilesFailed: Int
        let cpuSeconds: Double
        let cpuSecondsWasted: Double
        /// The part of it spent between the clients' going away and the renders' stopping: what a cancel controls.
        let cpuSecondsAfterCancel: Double
        let cancelLatencySeconds: Percentiles
        let renderSeconds: Percentiles
    }

    private struct QueueJSON: Encodable {
        let rendering: Int
        let waiting: Int
        let capacity: Int
        let slots: Int
    }

    private struct ReferencesJSON: Encodable {
        let kept: Int
        let found: Int
        let computed: Int
    }

    /// The median, the 95th percentile and the largest of some seconds; all null for none.
    struct Percentiles: Encodable {
        let p50: Double?
        let p95: Double?
        let max: Double?

        init(_ values: [Double]) {
            let sorted = values.sorted()
            func at(_ fraction: Double) -> Double? {
                sorted.isEmpty
                    ? nil : sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
            }
            (p50, p95, max) = (at(0.5), at(0.95), sorted.last)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(p50, forKey: .p50)
            try container.encode(p95, forKey: .p95)
            try container.encode(max, forKey: .max)
        }

        private enum CodingKeys: String, CodingKey { case p50, p95, max }
    }
}
