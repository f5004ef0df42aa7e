import Foundation
import Testing

@testable import MandelServer

extension ExplorerServerTests {
    /// The render queue's promises one at a time, and the figures /stats computes, on inputs where a
    /// wrong order or a forgotten cancel shows (a fresh mutation round found that no end-to-end test
    /// ever had two tiles waiting, a cancel ahead of its tile, or more than two samples).
    /// The order in which tiles were granted their slot.
    actor Order {
        var tickets: [Int] = []
        func add(_ ticket: Int) { tickets.append(ticket) }
    }

    @Suite("The render queue's order and cancels; /stats's percentiles")
    struct QueueAndFiguresTests {
        /// Waits (polling, at most 10 s) until `queue` has `count` tiles waiting.
        static func waitUntilWaiting(_ queue: RenderQueue, _ count: Int) async throws {
            let deadline = Date().addingTimeInterval(10)
            while queue.occupancy.waiting < count {
                try #require(Date() < deadline, "\(count) tiles never waited")
                try await Task.sleep(for: .milliseconds(2))
            }
        }

        @Test("first come, first served: with three tiles waiting, freed slots go to them in their order")
        func firstComeFirstServed() async throws {
            let queue = RenderQueue(slots: 1, capacity: 8)
            #expect(await queue.enter(ticket: 0) == .granted)
            let order = Order()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for ticket in 1...3 {
                    group.addTask {
                        #expect(await queue.enter(ticket: ticket) == .granted)
                        await order.add(ticket)
                        queue.leave()
                    }
                    // Each in the line before the next arrives.
                    try await Self.waitUntilWaiting(queue, ticket)
                }
                queue.leave()
                try await group.waitForAll()
            }
            #expect(await order.tickets == [1, 2, 3])
            #expect(queue.occupancy.rendering == 0 && queue.occupancy.waiting == 0)
        }

        @Test("a cancel that comes before its tile asks is kept: the tile is cancelled, and takes no place in line")
        func cancelBeforeEnter() async throws {
            let queue = RenderQueue(slots: 1, capacity: 1)
            #expect(await queue.enter(ticket: 0) == .granted)
            queue.cancel(ticket: 7)
            // At once, or never: after 5 s the test cancels it again (now from the line) and fails.
            let admission = await withTaskGroup(of: RenderQueue.Admission?.self) { group in
                group.addTask { await queue.enter(ticket: 7) }
                group.addTask {
                    try? await Task.sleep(for: .seconds(5))
                    return nil
                }
                let first = await group.next()!
                if first == nil { queue.cancel(ticket: 7) }
                group.cancelAll()
                return first
            }
            #expect(admission == .cancelled, "the early cancel was forgotten: the tile waited in line")
            #expect(queue.occupancy.rendering == 1 && queue.occupancy.waiting == 0, "the cancelled tile waits nowhere")
            // The line's one place is still free for a live tile, which the slot's release then grants.
            async let live = queue.enter(ticket: 8)
            try await Self.waitUntilWaiting(queue, 1)
            #expect(await queue.enter(ticket: 9) == .full)
            queue.leave()
            #expect(await live == .granted)
        }

        @Test("percentiles of unordered seconds: p50, p95 and max of the sorted values")
        func percentiles() {
            let figures = ServerStats.Percentiles([0.3, 0.1, 0.5, 0.2, 0.4])
            #expect(figures.p50 == 0.3 && figures.p95 == 0.5 && figures.max == 0.5)
            let descending = ServerStats.Percentiles((1...100).reversed().map { Double($0) / 100 })
            #expect(descending.p50 == 0.51 && descending.p95 == 0.95 && descending.max == 1.0)
            let none = ServerStats.Percentiles([])
            #expect(none.p50 == nil && none.p95 == nil && none.max == nil)
        }

        /// /stats keeps a strategy's newest 10,000 render times and cancel latencies. Every test before
        /// recorded a handful, so a list that kept its first 10,000 and dropped each new one passed them
        /// (round eight's stats-window-drops-newest): here 10,000 of 1 s, then 10,000 of 2 s.
        @Test("/stats's percentiles are of the newest 10,000 render times and cancel latencies, not the first")
        func percentilesOfTheNewest() throws {
            let stats = ServerStats(strategies: ["gcd"])
            for seconds in [1.0, 2.0] {
                for _ in 0..<10_000 {
                    stats.ended("gcd", .sent(cpuSeconds: 0, renderSeconds: seconds))
                    stats.ended(
                        "gcd", .cancelledRendering(cpuSeconds: 0, afterCancelSeconds: 0, latencySeconds: seconds))
                }
            }
            let totals = try #require(stats.totals()["gcd"])
            #expect(totals.tilesSent == 20_000)
            #expect(totals.renderSeconds.p50 == 2 && totals.renderSeconds.max == 2, "\(totals.renderSeconds)")
            #expect(
                totals.cancelLatencySeconds.p50 == 2 && totals.cancelLatencySeconds.max == 2,
                "\(totals.cancelLatencySeconds)")
            // One more of 3 s: the newest is in, the oldest of 2 s out.
            stats.ended("gcd", .sent(cpuSeconds: 0, renderSeconds: 3))
            let after = try #require(stats.totals()["gcd"])
            #expect(after.renderSeconds.max == 3 && after.renderSeconds.p50 == 2, "\(after.renderSeconds)")
        }
    }
}
