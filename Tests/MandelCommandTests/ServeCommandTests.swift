import Foundation
import MandelServer
import Platform
import ProcessTestSupport
import Testing

/// `mandel serve` as a user runs it: a process that prints its URL, serves, and ends on a signal.
@Suite("mandel serve", .serialized)
struct ServeCommandTests {
    /// serve's view options are the page's starting view (/config's `start`), each under its
    /// render option's name: every key a view request takes (but the size, which the page sets)
    /// must come through, or the page starts with another view than the one asked for. The two
    /// servers between them give every key: a deep view in gray, and a Julia set with a palette (each
    /// pair refuses the other).
    @Test("every view option serve is given reaches the page's start view, under the key the page reads")
    func startViewHasEveryKey() throws {
        let given: [[(key: String, value: String)]] = [
            [
                ("center", "0.1,-0.2"), ("zoom", "1e20"), ("precision", "perturbation"), ("bla", "off"),
                ("period", "off"), ("iterations", "500"), ("color", "gray"), ("supersample", "2"),
            ],
            [
                ("center", "0,0"), ("zoom", "2"), ("julia", "-0.8,0.156"), ("iterations", "300"), ("palette", "fire"),
                ("palette-cycle", "32.5"), ("palette-offset", "0.25"),
            ],
        ]
        var covered: Set<String> = []
        for options in given {
            let server = try ServeProcess(options.flatMap { ["--\($0.key)", $0.value] } + ["--strategy", "tasks"])
            defer { if server.process.isRunning { server.process.terminate() } }
            let config = try HTTPConnection.get("/config", port: server.port, deadline: 10).json()
            let start = try #require(config["start"] as? [String: String], "\(config)")
            for (key, value) in options {
                #expect(start[key] == value, "--\(key) \(value): the start view has \(start)")
                covered.insert(key)
            }
            #expect(start["strategy"] == "tasks")
            #expect(try server.stop(with: SIGTERM) < 10)
        }
        #expect(covered == Set(ViewRequest.viewKeys).subtracting(["size"]), "keys no server here was given")
    }

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
        "SIGTERM or SIGINT during a slow tile ends it with status 0 long before the tile would end, and leaves no helper",
        arguments: [
            (SIGTERM, "thread"), (SIGINT, "operation"), (SIGTERM, "gcd"), (SIGINT, "gcd"), (SIGTERM, "process"),
            (SIGINT, "process"),
        ])
    func signalDuringSlowTile(signal: Int32, strategy: String) throws {
        let server = try ServeProcess(["--strategy", strategy])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let slow = try HTTPConnection(port: server.port)
        try slow.send(get: SlowTile.target(strategy: strategy))
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
        #expect(seconds < SlowTile.endBound, "took \(seconds) s to exit after signal \(signal)")
        #expect(helpers.filter(ServeProcess.isAlive).isEmpty, "helpers left running: \(helpers)")
        #expect(ServeProcess.children(of: server.process.processIdentifier, named: "helper").isEmpty)
        #expect(!server.standardError.contains("Fatal error"))
        // The client got its answer: nothing (499 is for nobody) or the connection closed, never a tile.
        let reply = try? slow.reply(deadline: 5, waitingFor: "the slow tile's end")
        #expect(reply == nil || reply?.status == 499, "\(reply?.status ?? 0)")
    }

    /// Only SIGINT and SIGTERM are the way to end a server; any other signal that would end it stops
    /// it as it stops a render: 128 + n, and one line that names the signal.
    @Test(
        "any other signal that would end serve stops it with status 128 + n and one line naming the signal",
        arguments: [
            (SIGHUP, "mandel: hung up (SIGHUP)"), (SIGQUIT, "mandel: quit (SIGQUIT)"),
            (SIGUSR2, "mandel: stopped by SIGUSR2"),
            (SIGXCPU, "mandel: stopped by SIGXCPU: the CPU time limit ('ulimit -t') ran out"),
        ])
    func otherSignalStops(signal: Int32, line: String) throws {
        let server = try ServeProcess([])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        #expect(try HTTPConnection.get("/health", port: server.port, deadline: 30).status == 200)
        _ = try server.stop(with: signal)
        #expect(server.process.terminationReason == .exit)
        #expect(server.process.terminationStatus == 128 + signal)
        let lines = server.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix(line + ";") == true, "\(server.standardError)")
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
        #expect(latency > 0 && latency < SlowTile.endBound, "cancel latency \(latency) s")
        #expect(server.helpers == helpers, "the helpers were replaced: \(helpers) became \(server.helpers)")
        #expect(helpers.allSatisfy(ServeProcess.isAlive))
        #expect(try HTTPConnection.get(SlowTile.quickTarget(strategy: "process"), port: server.port).status == 200)
        try waitForSent(2, of: "process", port: server.port)
        #expect(server.helpers == helpers, "the next tile started new helpers")
        #expect(try server.stop(with: SIGTERM) < 2)
        #expect(server.process.terminationStatus == 0)
    }

    /// Every test before kept at most two helpers (the pool's least capacity), so the pool never
    /// had more given back than it keeps: one kept over its capacity went unseen.
    @Test(
        "the helpers serve keeps between tiles are its pool's capacity, no more: a tile of more workers ends the rest")
    func poolKeepsItsCapacity() throws {
        let capacity = max(2, ProcessorCount.available)
        // One worker more than the pool keeps, and at least as many tiles of 8x8: every worker's slot takes a helper.
        let server = try ServeProcess(["--strategy", "process", "--workers", "\(capacity + 1)", "--tile", "8x8"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let side = 8 * Int(Double(capacity + 1).squareRoot().rounded(.up))
        let target =
            "/tile?strategy=process&size=512x512&center=-0.1225,0.7449&zoom=2&iterations=20&window=0,0,\(side),\(side)"
        #expect(try HTTPConnection.get(target, port: server.port).status == 200)
        try waitForSent(1, of: "process", port: server.port)
        // The one the pool cannot keep is ended within its second of grace.
        try waitUntil("the pool to end the helper it cannot keep", seconds: 20) { server.helpers.count == capacity }
        let kept = server.helpers
        usleep(1_500_000)
        #expect(server.helpers == kept, "the pool's helpers changed while idle: \(kept) became \(server.helpers)")
        // The next tile takes the kept ones and starts one more, and the pool again keeps its capacity.
        #expect(try HTTPConnection.get(target, port: server.port).status == 200)
        try waitForSent(2, of: "process", port: server.port)
        try waitUntil("the pool to end the helper it cannot keep", seconds: 20) { server.helpers.count == capacity }
        #expect(try server.stop(with: SIGTERM) < 5)
        #expect(server.process.terminationStatus == 0)
    }

    /// The server's own requests run on threads of its own: `gcd`'s blocks and `tasks`' child
    /// tasks take Dispatch's worker threads, as many as the processors, on which the cooperative
    /// pool runs on Linux (with the server's handlers there, /health took 0.3 to over 5 s during
    /// their tiles, and the close that cancels a tile waited as long; under 0.08 s for the others).
    @Test(
        "while a tile renders, /health answers within half a second and a closed connection cancels it long before its end",
        arguments: ["serial", "thread", "operation", "gcd", "apply", "tasks", "pthread", "process"])
    func serverAnswersWhileATileRenders(strategy: String) throws {
        // 8x8 tiles: a process helper finishes the tile it was given before a cancel reaches it (0.07 s of
        // processor time at the slow tile's 5,000,000 iterations; at 16x16, a loaded machine took 6 s).
        let server = try ServeProcess(["--strategy", strategy] + (strategy == "process" ? ["--tile", "8x8"] : []))
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
        #expect(counted < SlowTile.endBound, "the cancel was counted \(counted) s after the connection closed")
        let stats = try StatsReading.fetch(port: server.port)
        #expect(stats.count("tiles_sent", of: strategy) == 0 && stats.count("tiles_cancelled", of: strategy) == 1)
        _ = try server.stop(with: SIGKILL)
    }

    @Test(
        "a bad starting view or port exits 64 with one line naming the option",
        arguments: [
            (["--iterations", "0"], "iterations must be from 1"), (["--color", "histogram"], "histogram"),
            (["--port", "70000"], "--port must be from 0 to 65535 (got 70000)"),
            // Refused as serve's own, before a preset's other checks (its size, its view options) ask for
            // what serve would refuse all the same.
            (["--preset", "benchmarks-game"], "--preset is a fixed picture; the explorer starts at a view"),
            (
                ["--preset", "benchmarks-game", "--size", "500"],
                "--preset is a fixed picture; the explorer starts at a view"
            ),
            (
                ["--preset", "benchmarks-game", "--zoom", "2"],
                "--preset is a fixed picture; the explorer starts at a view"
            ),
            (["--max-iterations", "100", "--iterations", "101"], "--max-iterations 100"),
            (["--queue", "-1"], "--queue"),
            // Each range's both ends, one past each, in the words of the option's own check.
            (["--max-iterations", "0"], "--max-iterations must be from 1 to 4294967294 (got 0)"),
            (["--max-iterations", "4294967295"], "--max-iterations must be from 1 to 4294967294 (got 4294967295)"),
            (["--slots", "0"], "--slots must be from 1 to 64 (got 0)"),
            (["--slots", "65"], "--slots must be from 1 to 64 (got 65)"),
            (["--queue", "10001"], "--queue must be from 0 to 10000 tiles (got 10001)"),
            (["--port", "-1"], "--port must be from 0 to 65535 (got -1)"),
        ])
    func badStart(arguments: [String], mention: String) throws {
        // A refusal takes well under a second; a server that started is killed at the deadline.
        let result = try MandelProcess.run(["serve", "--port", "0"] + arguments, deadline: 15)
        expectRefusal(result, status: 64, mentioning: mention)
        #expect(result.standardOutput.isEmpty, "printed \(result.standardOutput)")
        #expect(result.standardError.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1)
    }

    /// The other side of badStart's ranges: each end itself is taken, and the server serves.
    @Test(
        "the ends of serve's ranges are taken: --slots 1 and 64, --queue 0 and 10000, --max-iterations 1 and 4294967294"
    )
    func rangeEndsTaken() throws {
        for arguments in [
            ["--slots", "1", "--queue", "0", "--max-iterations", "1", "--iterations", "1"],
            ["--slots", "64", "--queue", "10000", "--max-iterations", "4294967294"],
        ] {
            let server = try ServeProcess(arguments)
            #expect(server.port > 0, "\(arguments)")
            let health = try HTTPConnection.get("/health", port: server.port, deadline: 10)
            #expect(health.status == 200 && health.text == "ok\n", "\(arguments): /health \(health.status)")
            let config = try HTTPConnection.get("/config", port: server.port, deadline: 10).json()
            let maximum = arguments[arguments.firstIndex(of: "--max-iterations")! + 1]
            #expect((config["max_iterations"] as? Int).map(String.init) == maximum, "\(config["max_iterations"] ?? "")")
            // Taken and passed on: the server's queue has the slots and capacity given.
            let stats = try StatsReading.fetch(port: server.port)
            let value = { (option: String) in Int(arguments[arguments.firstIndex(of: option)! + 1]) }
            #expect(
                stats.count("slots", in: "queue") == value("--slots"), "\(arguments): \(stats.object["queue"] ?? "")")
            #expect(
                stats.count("capacity", in: "queue") == value("--queue"), "\(arguments): \(stats.object["queue"] ?? "")"
            )
            _ = try server.stop(with: SIGKILL)
        }
    }

    /// `/events` from the real process, whose main queue runs (in a test runner's process it does not): a
    /// `serial` tile holds the main queue for as long as it renders, a `thread` tile leaves it free.
    @Test("/events: every documented key, within bounds: serial's tile holds the main queue, thread's does not")
    func eventsShape() throws {
        let server = try ServeProcess([])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let started = Date()
        // The period-3 bulb's interior: a few hundred milliseconds a tile, so the monitor samples it.
        for strategy in ["thread", "serial"] {
            let tile =
                "/tile?strategy=\(strategy)&size=600x400&center=-0.122,0.745&zoom=20&iterations=40000"
                + "&window=236,136,128,128"
            #expect(try HTTPConnection.get(tile, port: server.port, deadline: 60).status == 200)
            try waitForSent(1, of: strategy, port: server.port)
        }
        let connection = try HTTPConnection(port: server.port)
        defer { connection.close() }
        try connection.send(get: "/events")
        let stream = try connection.receive(
            until: Array("\n\n".utf8), occurrences: 2, deadline: 10, waitingFor: "/events")
        let stats = try StatsReading.fetch(port: server.port)
        let text = String(decoding: stream, as: UTF8.self)
        let messages = text.components(separatedBy: "\n\n").filter { $0.contains("event: stats") }
        let data = try #require(messages.last?.split(separator: "\n").first { $0.hasPrefix("data: ") })
        let event = try #require(
            try JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8)) as? [String: Any])
        let elapsed = Date().timeIntervalSince(started)
        #expect(event["window_seconds"] as? Double == 2)
        let uptime = try #require(event["uptime_seconds"] as? Double)
        #expect(uptime > 0 && uptime <= elapsed + 5, "uptime \(uptime) s")
        #expect(event["rendering"] is NSNull, "nothing renders now")
        let threads = try #require(event["threads"] as? Int)
        #expect(threads >= 2 && threads < 1000, "\(threads) threads")
        let resident = try #require(event["resident_bytes"] as? Int)
        #expect(resident > 5_000_000 && resident < 8_000_000_000, "\(resident) bytes")
        let cpu = try #require(event["cpu_seconds"] as? Double)
        let rendered = stats.seconds("cpu_seconds", of: "thread") + stats.seconds("cpu_seconds", of: "serial")
        #expect(cpu >= rendered * 0.9 && cpu <= elapsed * 2 + 1, "\(cpu) s, the tiles' \(rendered) s")
        // The totals are /stats's strategies (fetched after: nothing happened between).
        let totals = try #require(event["totals"] as? [String: [String: Any]])
        #expect(totals.count == 8 && totals["thread"]?["tiles_sent"] as? Int == 1)
        #expect(Set(totals["serial"]?.keys ?? [:].keys) == Set(stats.strategy("serial").keys))
        let strategies = try #require(event["strategies"] as? [String: [String: Any]])
        #expect(strategies.count == 8)
        for name in ["thread", "serial"] {
            let figures = try #require(strategies[name])
            let rate = try #require(figures["tiles_per_second"] as? Double)
            // One tile in a window of 2 s, if it fell in it.
            #expect(rate >= 0 && rate <= 0.5, "\(name): \(rate) tiles/s")
            let sampled = try #require(figures["threads"] as? Int, "\(name): no threads sampled while it rendered")
            #expect(sampled >= 2 && sampled <= threads + 8, "\(name): \(sampled) threads")
            #expect(figures["deep"] is NSNull, "a shallow view computes no orbit")
            let late = try #require(figures["main_queue_late_seconds"] as? [String: Any])
            #expect(Set(late.keys) == ["p99", "max", "worst"])
            let worst = try #require(late["worst"] as? Double, "\(name): no heartbeat while it rendered")
            let render = stats.percentile("render_seconds", "max", of: name)
            if name == "serial" {
                // Its tile held the main queue: the heartbeat ran about as late as the tile took.
                #expect(worst >= 0.5 * render && worst <= render + 0.5, "serial: worst \(worst) s, tile \(render) s")
            } else {
                #expect(worst >= 0 && worst < max(0.1, 0.5 * render), "thread: worst \(worst) s, tile \(render) s")
            }
            if let p99 = late["p99"] as? Double, let max = late["max"] as? Double {
                #expect(0 <= p99 && p99 <= max && max <= worst, "\(name): p99 \(p99), max \(max), worst \(worst)")
            }
        }
        #expect((strategies["gcd"]?["tiles_per_second"] as? Double) == 0, "no gcd tile")

        // Once the window has passed the last tile, its rolling figures are gone.
        Thread.sleep(forTimeInterval: 2.3)
        let later = String(
            decoding: try connection.receive(
                until: Array("\n\n".utf8), occurrences: 2, deadline: 10, waitingFor: "/events, later"),
            as: UTF8.self)
        let laterData = try #require(
            later.components(separatedBy: "\n\n").last { $0.contains("event: stats") }?.split(separator: "\n")
                .first { $0.hasPrefix("data: ") })
        let laterEvent = try #require(
            try JSONSerialization.jsonObject(with: Data(laterData.dropFirst(6).utf8)) as? [String: Any])
        let laterThread = try #require((laterEvent["strategies"] as? [String: [String: Any]])?["thread"])
        #expect(laterThread["tiles_per_second"] as? Double == 0, "\(laterThread["tiles_per_second"] ?? "?") tiles/s")
        #expect(laterThread["threads"] is NSNull, "no thread sampled in the window")
        _ = try server.stop(with: SIGTERM)
    }
}
