import Foundation
import Probes
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
        // Five stalls of 3 frames and 3 ms each, with the main queue free for 40 ms between them.
        // Between the last tick before a stall and the first after it lie at least 3 frame
        // boundaries, so at least 2 whole frames without a tick: 10 in all, whatever the phase.
        // Counting one short (k − 2 a stall) reaches 10 only if every stall straddled 4
        // boundaries, which a 53 ms stall does about one time in five.
        let stall = 3 * frame + 0.003
        for _ in 0..<5 {
            try await Task.sleep(for: .milliseconds(40))
            usleep(UInt32(stall * 1e6))
        }
        try await Task.sleep(for: .milliseconds(40))
        let lateness = heartbeat.stop()
        let elapsed = Date().timeIntervalSince(start)
        #expect(lateness.missedFrames >= 5 * 2, "\(lateness.missedFrames) frames missed in five stalls of 3+ frames")
        #expect(
            Double(lateness.missedFrames) <= elapsed / frame,
            "\(lateness.missedFrames) frames missed in \(elapsed) s")
        // The longest stall's lateness: at least the stall less one tick, at most the whole run.
        #expect(lateness.max >= stall - 0.001 && lateness.max <= elapsed, "max \(lateness.max) s")
        #expect(lateness.ticks >= 5 && Double(lateness.ticks) <= elapsed / 0.001 + 1, "\(lateness.ticks) ticks")
    }
}
