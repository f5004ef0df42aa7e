import Foundation
import ProcessTestSupport
import Testing

/// `mandel serve` as a user runs it: a process that prints its URL, serves, and ends on a signal.
@Suite("mandel serve", .serialized)
struct ServeCommandTests {
    @Test("--port 0 prints http://127.0.0.1:PORT/ as its first line, flushed while it serves; /health is ok")
    func firstLineAndHealth() throws {
        let server = try ServeProcess([])
        defer { if server.process.isRunning { server.process.terminate() } }
        // The line was read while the server runs: it was flushed, not left in a buffer until exit.
        #expect(server.process.isRunning)
        #expect(server.firstLine == "http://127.0.0.1:\(server.port)/")
        #expect(server.port > 0 && server.port != 8080)
        let health = try HTTPConnection.get("/health", port: server.port, deadline: 10)
        #expect(health.status == 200 && health.text == "ok\n")
        let config = try HTTPConnection.get("/config", port: server.port, deadline: 10).json()
        #expect((config["start"] as? [String: String])?["strategy"] == "gcd")
        #expect(try server.stop(with: SIGTERM) < 2)
        #expect(server.process.terminationStatus == 0)
    }

    /// Each signal with a strategy whose workers are threads of their own, with the two whose
    /// workers share the server's threads, and with `process`.
    ///
    /// The server's signal watch is a pipe that a thread of its own reads, not Dispatch's signal
    /// sources, which reach their handler through Dispatch's pool: a `gcd` tile fills it (the
    /// shutdown began 1.4 s after SIGTERM that way); and the stop kills the `process` strategy's
    /// helpers at work, not only the idle ones (a busy one finished its 64×64 tile first: 5.6 to
    /// 6.3 s at 5,000,000 iterations).
    @Test(
        "SIGTERM or SIGINT during a slow tile ends it with status 0 within a second, and leaves no helper",
        arguments: [
            (SIGTERM, "thread"), (SIGINT, "operation"), (SIGTERM, "gcd"), (SIGINT, "gcd"), (SIGTERM, "process"),
            (SIGINT, "process"),
        ])
    func signalDuringSlowTile(signal: Int32, strategy: String) throws {
        let server = try ServeProcess(["--strategy", strategy])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let slow = try HTTPConnection(port: server.port)
        try slow.send(get: SlowTile.target(strategy: strategy, iterations: 5_000_000))
        try waitUntil("the slow tile to render") {
            try StatsReading.fetch(port: server.port).count("rendering", in: "queue") == 1
        }
        usleep(300_000)
        // One helper per worker (two), started for this tile and kept.
        let helpers = server.helpers
        #expect(helpers.count == (strategy == "process" ? 2 : 0), "helpers \(helpers)")
        let seconds = try server.stop(with: signal)
        #expect(server.process.terminationStatus == 0, "\(server.standardError)")
        #expect(server.process.terminationReason == .exit)
        // Measured 0.03 to 0.2 s for thread and operation at a load of 5 on 2 processors.
        #expect(seconds < 1, "took \(seconds) s to exit after signal \(signal)")
        #expect(helpers.filter(ServeProcess.isAlive).isEmpty, "helpers left running: \(helpers)")
        #expect(ServeProcess.children(of: server.process.processIdentifier, named: "helper").isEmpty)
        #expect(!server.standardError.contains("Fatal error"))
        // The client got its answer: nothing (499 is for nobody) or the connection closed, never a tile.
        let reply = try? slow.reply(deadline: 5, waitingFor: "the slow tile's end")
        #expect(reply == nil || reply?.status == 499, "\(reply?.status ?? 0)")
    }

    @Test("a process tile cancelled while it renders keeps its helpers: the same ones serve the next tile")
    func processCancelKeepsHelpers() throws {
        // Tiles of 8x8 pixels: a helper finishes the tile it was given before the cancel reaches it.
        let server = try ServeProcess(["--strategy", "process", "--tile", "8x8"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        #expect(try HTTPConnection.get(SlowTile.quickTarget(strategy: "process"), port: server.port).status == 200)
        let helpers = server.helpers
        #expect(helpers.count == 2, "helpers \(helpers)")
        let sent = Date()
        let slow = try HTTPConnection(port: server.port)
        try slow.send(get: SlowTile.target(strategy: "process"))
        try waitUntil("the slow tile to render") {
            try StatsReading.fetch(port: server.port).count("rendering", in: "queue") == 1
        }
        usleep(300_000)
        slow.close()
        try waitUntil("the cancel to be counted", seconds: 20) {
            try StatsReading.fetch(port: server.port).count("tiles_cancelled_rendering", of: "process") == 1
        }
        let stats = try StatsReading.fetch(port: server.port)
        #expect(stats.count("tiles_requested", of: "process") == 2 && stats.count("tiles_sent", of: "process") == 1)
        #expect(stats.count("tiles_cancelled", of: "process") == 1 && stats.count("tiles_wasted", of: "process") == 0)
        let wasted = stats.seconds("cpu_seconds_wasted", of: "process")
        let elapsed = Date().timeIntervalSince(sent)
        #expect(wasted > 0.01 && wasted <= elapsed * Double(ProcessInfo.processInfo.activeProcessorCount) + 0.05)
        let latency = stats.percentile("cancel_latency_seconds", "max", of: "process")
        #expect(latency > 0 && latency < 1, "cancel latency \(latency) s")
        #expect(server.helpers == helpers, "the helpers were replaced: \(helpers) became \(server.helpers)")
        #expect(helpers.allSatisfy(ServeProcess.isAlive))
        #expect(try HTTPConnection.get(SlowTile.quickTarget(strategy: "process"), port: server.port).status == 200)
        try waitForSent(2, of: "process", port: server.port)
        #expect(server.helpers == helpers, "the next tile started new helpers")
        #expect(try server.stop(with: SIGTERM) < 2)
        #expect(server.process.terminationStatus == 0)
    }

    /// The server's own requests run on threads of its own: `gcd`'s blocks and `tasks`' child
    /// tasks take Dispatch's worker threads, as many as the processors, on which the cooperative
    /// pool runs on Linux (with the server's handlers there, /health took 0.3 to over 5 s during
    /// their tiles, and the close that cancels a tile waited as long; under 0.08 s for the others).
    @Test(
        "while a tile renders, /health answers within half a second and a closed connection cancels it within one",
        arguments: ["serial", "thread", "operation", "gcd", "apply", "tasks", "pthread", "process"])
    func serverAnswersWhileATileRenders(strategy: String) throws {
        // 16x16 tiles: a process helper finishes the tile it was given before a cancel reaches it.
        let server = try ServeProcess(["--strategy", strategy] + (strategy == "process" ? ["--tile", "16x16"] : []))
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let slow = try HTTPConnection(port: server.port)
        try slow.send(get: SlowTile.target(strategy: strategy))
        usleep(500_000)
        var slowest = 0.0
        for _ in 0..<3 {
            let started = Date()
            let health = try? HTTPConnection.get("/health", port: server.port, deadline: 5)
            slowest = max(slowest, Date().timeIntervalSince(started))
            #expect(health?.text == "ok\n", "no answer to /health within 5 s")
            usleep(200_000)
        }
        #expect(slowest < 0.5, "/health took \(slowest) s while a \(strategy) tile rendered")
        let closed = Date()
        slow.close()
        try waitUntil("the \(strategy) tile's cancel", seconds: 20) {
            try StatsReading.fetch(port: server.port).count("tiles_cancelled_rendering", of: strategy) == 1
        }
        let counted = Date().timeIntervalSince(closed)
        #expect(counted < 1, "the cancel was counted \(counted) s after the connection closed")
        let stats = try StatsReading.fetch(port: server.port)
        #expect(stats.count("tiles_sent", of: strategy) == 0 && stats.count("tiles_cancelled", of: strategy) == 1)
        _ = try server.stop(with: SIGKILL)
    }

    @Test(
        "a bad starting view or port exits 64 with one line naming the option",
        arguments: [
            (["--iterations", "0"], "iterations must be from 1"), (["--color", "histogram"], "histogram"),
            (["--port", "70000"], "--port must be from 0 to 65535 (got 70000)"),
            (["--preset", "benchmarks-game"], "preset"),
            (["--max-iterations", "100", "--iterations", "101"], "--max-iterations 100"),
            (["--queue", "-1"], "--queue"),
        ])
    func badStart(arguments: [String], mention: String) throws {
        // A refusal takes well under a second; a server that started is killed at the deadline.
        let result = try MandelProcess.run(["serve", "--port", "0"] + arguments, deadline: 15)
        expectRefusal(result, status: 64, mentioning: mention)
        #expect(result.standardOutput.isEmpty, "printed \(result.standardOutput)")
        #expect(result.standardError.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1)
    }
}
