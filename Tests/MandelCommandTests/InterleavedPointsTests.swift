import ArgumentParser
import Comparison
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

    @Test("three points, three runs: every point's first run, then every point's second, then every third")
    func roundByRound() async throws {
        let sessions = try [1, 2, 3].map { try Self.session(workers: $0, strategies: ["serial", "gcd"], runs: 3) }
        var order: [(session: Int, round: Int, strategy: String, start: UInt64)] = []
        let comparisons = try await MeasurementSession.measure(sessions) { run in
            order.append((run.session, run.round, run.entry.name, run.report.startNanoseconds))
            #expect(run.isLast == (run.round == 2))
        }
        let expected = (0..<3).flatMap { round in
            (0..<3).flatMap { session in ["serial", "gcd"].map { (session, round, $0) } }
        }
        #expect(order.map { "\($0.session)/\($0.round)/\($0.strategy)" } == expected.map { "\($0.0)/\($0.1)/\($0.2)" })
        // The runs started in that order, one after the other.
        #expect(zip(order, order.dropFirst()).allSatisfy { $0.start < $1.start })
        // Each point's comparison has its own workers and every one of its runs.
        #expect(comparisons.map { $0.results.map(\.workers) } == [[1, 1], [1, 2], [1, 3]])
        #expect(comparisons.allSatisfy { $0.results.allSatisfy { $0.wall.values.count == 3 } })
    }

    @Test("one session measured alone is the same measurement: its runs in rounds, its last run handed over")
    func oneSession() async throws {
        let session = try Self.session(workers: 2, strategies: ["serial", "thread", "tasks"], runs: 2)
        var last: [String] = []
        let comparison = try await session.measure { entry, canvas, report in
            last.append(entry.name)
            #expect(canvas.checksum != 0 && report.plannedWorkers == (entry.name == "serial" ? 1 : 2))
        }
        #expect(last == ["serial", "thread", "tasks"])
        #expect(comparison.results.map(\.wall.values.count) == [2, 2, 2])
        #expect(comparison.mismatchedStrategies.isEmpty)
    }
}
