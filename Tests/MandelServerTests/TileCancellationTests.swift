import Foundation
import MandelServer
import MandelbrotCore
import ProcessTestSupport
import Testing

extension ExplorerServerTests {
    @Suite("Tiles whose client goes away", .serialized)
    struct TileCancellationTests {
        @Test(
            "a connection closed while its tile renders stops the render through the strategy's cancel; the next tile is served",
            arguments: ["gcd", "operation", "thread"])
        func cancelledWhileRendering(strategy: String) async throws {
            var settings = oneSlot(queue: 4)
            settings.cancellationMode = .flag
            try await withLiveServer(settings, waitingFor: "a \(strategy) tile cancelled as it renders") { port, _ in
                let sent = Date()
                let slow = try startSlowTile(strategy: strategy, port: port)
                // Let it render a while: processor time goes into it.
                usleep(300_000)
                slow.close()
                try waitUntil("the cancel to be counted", seconds: 20) {
                    try StatsReading.fetch(port: port).count("tiles_cancelled_rendering", of: strategy) == 1
                }
                let stats = try StatsReading.fetch(port: port)
                expectOneCancelledRendering(stats, strategy: strategy, secondsSinceSent: Date().timeIntervalSince(sent))
                #expect(stats.count("rendering", in: "queue") == 0, "the slot is free again")
                let next = try HTTPConnection.get(SlowTile.quickTarget(strategy: strategy), port: port)
                #expect(next.status == 200, "\(next.text)")
                try waitForSent(1, of: strategy, port: port)
            }
        }

        @Test("a connection closed while its tile waits in line counts as cancelled while queued, and never renders")
        func cancelledWhileWaiting() async throws {
            try await withLiveServer(oneSlot(queue: 4), waitingFor: "a tile cancelled in line") { port, _ in
                let slow = try startSlowTile(strategy: "gcd", port: port)
                let waiting = try HTTPConnection(port: port)
                try waiting.send(get: SlowTile.target(strategy: "pthread", iterations: 1_000_000))
                try waitUntil("the second tile to wait") {
                    try StatsReading.fetch(port: port).count("waiting", in: "queue") == 1
                }
                waiting.close()
                try waitUntil("the waiting tile to leave the line", seconds: 20) {
                    try StatsReading.fetch(port: port).count("waiting", in: "queue") == 0
                }
                // The line empties when the tile leaves it, and the counts follow at once.
                let stats = try StatsReading.fetch(port: port)
                #expect(stats.count("tiles_cancelled_queued", of: "pthread") == 1)
                #expect(stats.count("tiles_cancelled", of: "pthread") == 1)
                #expect(stats.count("tiles_cancelled_rendering", of: "pthread") == 0)
                #expect(stats.seconds("cpu_seconds", of: "pthread") == 0, "a tile that never rendered costs nothing")
                #expect(stats.percentile("cancel_latency_seconds", "max", of: "pthread").isNaN)
                #expect(stats.count("rendering", in: "queue") == 1, "the slow tile still renders")
                #expect(stats.count("tiles_cancelled", of: "gcd") == 0)
                slow.close()
                try waitUntil("the slow tile's cancel", seconds: 20) {
                    try StatsReading.fetch(port: port).count("tiles_cancelled_rendering", of: "gcd") == 1
                }
                // The tile cancelled in line never took the slot: the slot is free, nothing is rendering.
                #expect(try StatsReading.fetch(port: port).count("rendering", in: "queue") == 0)
                #expect(try StatsReading.fetch(port: port).count("tiles_cancelled_rendering", of: "pthread") == 0)
            }
        }

        /// The server's stop kills the `process` strategy's helpers at work, not only the idle ones: a
        /// busy helper would otherwise finish its 64×64 part of the bulb first: 5.3 s at 5,000,000
        /// iterations, so the tile here takes 10,000,000 (the server's most), twice the bound. (From
        /// the binary this is hidden: the kernel kills the helpers when the server exits.)
        @Test(
            "the server's stop kills the process strategy's busy helpers: the tile under way ends long before its own end"
        )
        func stopKillsBusyHelpers() async throws {
            try await withLiveServer(oneSlot(queue: 4), waitingFor: "a process tile ended by the stop") {
                port, server in
                let slow = try HTTPConnection(port: port)
                defer { slow.close() }
                try slow.send(get: SlowTile.target(strategy: "process", iterations: 10_000_000))
                try waitUntil("the slow process tile to take the slot") {
                    try StatsReading.fetch(port: port).count("rendering", in: "queue") == 1
                }
                // The helpers at work on their first parts.
                Thread.sleep(forTimeInterval: 0.3)
                let stopped = Date()
                server.stopEverything()
                let reply = try? slow.reply(deadline: 20, waitingFor: "the stopped tile's answer or close")
                let seconds = Date().timeIntervalSince(stopped)
                #expect(seconds < SlowTile.endBound, "the tile ended \(seconds) s after the stop")
                #expect(reply?.status != 200, "a stopped tile was sent")
            }
        }
    }
}
