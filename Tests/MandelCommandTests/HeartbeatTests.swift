import Deadline
import Foundation
import Probes
import ProcessTestSupport
import Testing

/// The heartbeat's missed frames against stalls of known length, made on the main queue by the test.
@Suite("Main-queue heartbeat")
struct HeartbeatTests {
    @MainActor
    @Test("a stall of k frames and a little more misses at least k − 1 whole frames, and no more than elapsed")
    func missedFrames() async throws {
        let frame = Double(MainQueueHeartbeat.frameNanoseconds) / 1e9
        let heartbeat = MainQueueHeartbeat(intervalNanoseconds: 1_000_000)
        let start = Date()
        heartbeat.start()
        // Eight stalls of about 3 frames, with the main queue free for 40 ms between them. No tick
        // runs during a stall, so between the last tick before one of A seconds and the first after
        // it lie at least ⌊A/frame⌋ frame boundaries: at least ⌊A/frame⌋ − 1 whole frames without a
        // tick. Counting one short reaches that sum only if every stall straddled one boundary more
        // than its length must, each about one time in two (by its length's phase against the frames).
        var leastMissed = 0
        for _ in 0..<8 {
            try await Task.sleep(for: .milliseconds(40))
            let stallStart = ContinuousClock.now
            usleep(UInt32(3 * frame * 1e6) + 1000)
            let stall = ContinuousClock.now - stallStart
            let stallSeconds = Double(stall.components.seconds) + Double(stall.components.attoseconds) / 1e18
            leastMissed += Int((stallSeconds / frame).rounded(.down)) - 1
        }
        try await Task.sleep(for: .milliseconds(40))
        let lateness = heartbeat.stop()
        let elapsed = Date().timeIntervalSince(start)
        #expect(
            lateness.missedFrames >= leastMissed,
            "\(lateness.missedFrames) frames missed, at least \(leastMissed) expected")
        #expect(
            Double(lateness.missedFrames) <= elapsed / frame,
            "\(lateness.missedFrames) frames missed in \(elapsed) s")
        // The longest stall's lateness: at least the stall less one tick, at most the whole run.
        #expect(lateness.max >= 3 * frame - 0.001 && lateness.max <= elapsed, "max \(lateness.max) s")
        #expect(lateness.ticks >= 8 && Double(lateness.ticks) <= elapsed / 0.001 + 1, "\(lateness.ticks) ticks")
    }

    /// compare's figures are its runs' measurements merged: each run's ticks and missed frames
    /// count, not only the last run's (a merge that kept the last run's ticks went unseen).
    @MainActor
    @Test("runs merged keep every run's ticks and missed frames, and the larger lateness")
    func mergedRuns() async throws {
        let frame = Double(MainQueueHeartbeat.frameNanoseconds) / 1e9
        var runs: [MainQueueLateness] = []
        // A run with the main queue free, then one with a stall of about 3 frames in it.
        for stalls in [false, true] {
            let heartbeat = MainQueueHeartbeat(intervalNanoseconds: 1_000_000)
            heartbeat.start()
            try await Task.sleep(for: .milliseconds(30))
            if stalls { usleep(UInt32(3 * frame * 1e6) + 1000) }
            try await Task.sleep(for: .milliseconds(30))
            runs.append(heartbeat.stop())
        }
        let (free, stalled) = (runs[0], runs[1])
        #expect(free.ticks >= 5 && stalled.ticks >= 5, "\(free.ticks) and \(stalled.ticks) ticks")
        #expect(stalled.missedFrames >= 1, "\(stalled.missedFrames) frames missed in a stall of 3")
        let merged = free.merged(with: stalled)
        #expect(merged.ticks == free.ticks + stalled.ticks)
        #expect(merged.missedFrames == free.missedFrames + stalled.missedFrames)
        #expect(merged.max >= stalled.max && merged.max >= free.max)
        // Merged the other way round, the same counts.
        let reversed = stalled.merged(with: free)
        #expect(reversed.ticks == merged.ticks && reversed.missedFrames == merged.missedFrames)
    }
}

@Suite("Deadlines for the binary")
struct ProcessDeadlineTests {
    @Test("a run of mandel that outlives its deadline is killed, and the test fails naming the command")
    func killed() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = Date()
        let error = #expect(throws: DeadlinePassed.self) {
            _ = try MandelProcess.run(
                ["render", "--size", "4000", "--iterations", "100000", "--workers", "1", "-o", "p.png"], in: folder,
                deadline: 0.5)
        }
        #expect(error?.waitingFor == "mandel render --size 4000 --iterations 100000 --workers 1 -o p.png to exit")
        #expect(Date().timeIntervalSince(started) < 10, "the killed run still held the test")
    }
}
