import Deadline
import Foundation
import Hummingbird
import HummingbirdTesting
import MandelServer
import ProcessTestSupport
import Testing

/// Runs `body` with a live server of `settings` (a real socket on a port the system chose),
/// on Dispatch's threads and within `seconds`: the body blocks on sockets.
func withLiveServer(
    _ settings: ExplorerServer.Settings, seconds: Double = 120, waitingFor what: String,
    _ body: @escaping @Sendable (_ port: Int, _ server: ExplorerServer) throws -> Void
) async throws {
    let server = try ExplorerServer(settings: settings)
    defer { server.stopEverything() }
    // On the server's own threads, as `mandel serve` runs it: on libdispatch's pool the tiles'
    // workers could starve the handlers (a 20 s wait for a cancel under ThreadSanitizer, CI).
    try await withTaskExecutorPreference(server.threads) {
        try await Application(router: server.router()).test(.live) { client in
            let port = try #require(client.port)
            try await withDeadline(seconds: seconds, waitingFor: what) { try body(port, server) }
        }
    }
}

/// Server settings with one render slot and `queue` tiles allowed to wait.
func oneSlot(queue: Int) -> ExplorerServer.Settings {
    var settings = ExplorerServer.Settings()
    settings.slots = 1
    settings.queueCapacity = queue
    return settings
}

/// Sends the slow tile of `strategy` on a new connection, and returns once it renders.
///
/// At 1,000,000 iterations, not the slow tile's 5,000,000: under ThreadSanitizer in this process a
/// tile runs several times slower than the binary's, and how long a tile would take is not what
/// these tests measure; that a cancel ends it is, and the cancel's own latency is bounded by
/// ``SlowTile/endBound`` as for the binary.
func startSlowTile(strategy: String, port: Int, rendering: Int = 1) throws -> HTTPConnection {
    let connection = try HTTPConnection(port: port)
    try connection.send(get: SlowTile.target(strategy: strategy, iterations: 1_000_000))
    try waitUntil("the slow \(strategy) tile to take the slot") {
        try StatsReading.fetch(port: port).count("rendering", in: "queue") == rendering
    }
    return connection
}

extension ExplorerServerTests {
    @Suite("Render queue: one slot, a bounded line", .serialized)
    struct RenderQueueTests {
        @Test(
            "with no room to wait, a tile while one renders is 503 with Retry-After: 1, counted; served once the slot frees"
        )
        func fullQueueRefuses() async throws {
            try await withLiveServer(oneSlot(queue: 0), waitingFor: "a refused tile, then a served one") { port, _ in
                let slow = try startSlowTile(strategy: "gcd", port: port)
                let refused = try HTTPConnection.get(SlowTile.quickTarget(strategy: "thread"), port: port)
                #expect(refused.status == 503)
                #expect(refused.headers["retry-after"] == "1")
                #expect(refused.headers["content-type"]?.hasPrefix("text/plain") == true)
                #expect(
                    refused.text.hasSuffix("\n") && refused.text.filter { $0 == "\n" }.count == 1, "\(refused.text)")
                #expect(refused.text.contains("queue is full"), "\(refused.text)")
                let during = try StatsReading.fetch(port: port)
                #expect(during.count("tiles_refused", of: "thread") == 1)
                #expect(during.count("tiles_requested", of: "thread") == 1)
                #expect(during.count("tiles_sent", of: "thread") == 0)
                #expect(during.count("tiles_refused", of: "gcd") == 0, "the refusal is the refused tile's strategy's")
                #expect(during.count("capacity", in: "queue") == 0 && during.count("slots", in: "queue") == 1)
                // The server still answers everything else at once while the slot is taken.
                #expect(try HTTPConnection.get("/health", port: port, deadline: 5).text == "ok\n")
                slow.close()
                try waitUntil("the slow tile to leave the slot") {
                    try StatsReading.fetch(port: port).count("rendering", in: "queue") == 0
                }
                let served = try HTTPConnection.get(SlowTile.quickTarget(strategy: "thread"), port: port)
                #expect(served.status == 200, "\(served.text)")
                #expect(Array(served.body.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
                try waitForSent(1, of: "thread", port: port)
                let after = try StatsReading.fetch(port: port)
                #expect(after.count("tiles_refused", of: "thread") == 1)
                #expect(after.count("tiles_requested", of: "thread") == 2)
            }
        }

        @Test("a line of one: the second tile waits, the third is refused; the waiting one is served after a cancel")
        func lineOfOne() async throws {
            try await withLiveServer(oneSlot(queue: 1), waitingFor: "a line of one tile") { port, _ in
                let slow = try startSlowTile(strategy: "gcd", port: port)
                let waiting = try HTTPConnection(port: port)
                try waiting.send(get: SlowTile.quickTarget(strategy: "pthread"))
                try waitUntil("the second tile to wait") {
                    try StatsReading.fetch(port: port).count("waiting", in: "queue") == 1
                }
                let refused = try HTTPConnection.get(SlowTile.quickTarget(strategy: "tasks"), port: port)
                #expect(
                    refused.status == 503 && refused.headers["retry-after"] == "1", "\(refused.status) \(refused.text)")
                #expect(refused.text.contains("(1 tiles waiting)"), "\(refused.text)")
                slow.close()
                let reply = try waiting.reply(waitingFor: "the waiting tile, once the slow one was cancelled")
                #expect(reply.status == 200, "\(reply.text)")
                try waitForSent(1, of: "pthread", port: port)
                let stats = try StatsReading.fetch(port: port)
                #expect(stats.count("tiles_refused", of: "tasks") == 1)
                #expect(stats.count("tiles_cancelled_rendering", of: "gcd") == 1)
                #expect(stats.count("waiting", in: "queue") == 0 && stats.count("rendering", in: "queue") == 0)
            }
        }
    }
}
