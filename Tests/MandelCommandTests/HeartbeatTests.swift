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
