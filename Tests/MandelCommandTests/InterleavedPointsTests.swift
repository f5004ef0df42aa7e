import ArgumentParser
import Comparison
import Deadline
import MandelOptions
import MandelbrotCore
import RenderModel
import StrategyCatalog
import Testing

/// A sweep's points measured round by round, as one comparison's strategies are.
@MainActor
struct InterleavedPointsTests {
    /// A session of `strategies` on a small picture with `workers`.
    static func session(workers: Int, strategies: [String], runs: Int) throws -> MeasurementSession {
        let view = try ViewOptions.parse(["--size", "48x32", "--iterations", "64"])
        let work = try WorkOptions.parse(["--workers", "\(workers)", "--tile", "16"])
        return MeasurementSession(
            entries: MeasurementSession.Entry.grid(
                strategies.map { StrategyCatalog.strategy(named: $0)! }, sharings: [.standard]),
            job: RenderJob(view: view, work: work), warmup: 1, runs: runs, cancellation: CancellationFlag(),
            behaviour: try BehaviourOptions.parse(["--heartbeat", "off"]))
    }

    /// What a measurement shows of its runs: each counted run's "session/round/strategy/last", its start,
    /// and each comparison's workers and run counts.
    struct Seen: Sendable {
        var runs: [String] = []
        var starts: [UInt64] = []
        var workers: [[Int]] = []
        var counts: [[Int]] = []
        var mismatched: [[String]] = []
    }

    /// Measures `sessions` together, within the deadline every render test has.
    static func measured(
        _ sessions: @escaping @MainActor @Sendable () throws -> [MeasurementSession]
    ) async throws -> Seen {
        try await withDeadline(waitingFor: "a measurement of small pictures") { try await see(sessions()) }
    }

    private static func see(_ sessions: [MeasurementSession]) async throws -> Seen {
        var seen = Seen()
        let comparisons = try await MeasurementSession.measure(sessions) { run in
            seen.runs.append("\(run.session)/\(run.round)/\(run.entry.name)/\(run.isLast)")
            seen.starts.append(run.report.startNanoseconds)
        }
        seen.workers = comparisons.map { $0.results.map(\.workers) }
        seen.counts = comparisons.map { $0.results.map(\.wall.values.count) }
        seen.mismatched = comparisons.map(\.mismatchedStrategies)
        return seen
    }

    @Test("three points, three runs: every point's first run, then every point's second, then every third")
    func roundByRound() async throws {
        let seen = try await Self.measured {
            try [1, 2, 3].map { try Self.session(workers: $0, strategies: ["serial", "gcd"], runs: 3) }
        }
        let expected = (0..<3).flatMap { round in
            (0..<3).flatMap { session in ["serial", "gcd"].map { "\(session)/\(round)/\($0)/\(round == 2)" } }
        }
        #expect(seen.runs == expected)
        // The runs started in that order, one after the other.
        #expect(zip(seen.starts, seen.starts.dropFirst()).allSatisfy { $0 < $1 })
        // Each point's comparison has its own workers and every one of its runs.
        #expect(seen.workers == [[1, 1], [1, 2], [1, 3]])
        #expect(seen.counts == [[3, 3], [3, 3], [3, 3]])
    }

    @Test("one session measured alone is the same measurement: its runs in rounds, the same pixels")
    func oneSession() async throws {
        let seen = try await Self.measured {
            [try Self.session(workers: 2, strategies: ["serial", "thread", "tasks"], runs: 2)]
        }
        #expect(seen.runs.filter { $0.hasSuffix("/true") } == ["0/1/serial/true", "0/1/thread/true", "0/1/tasks/true"])
        #expect(seen.workers == [[1, 2, 2]] && seen.counts == [[2, 2, 2]])
        #expect(seen.mismatched == [[]])
    }
}
