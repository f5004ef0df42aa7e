import Foundation
import ProcessTestSupport
import Testing

/// `/stats`' processor time of the tiles, against the server process's own as the kernel counts it
/// (`/proc/PID/stat`). The server runs in a process of its own, doing nothing but the test's tiles one
/// after another, so the time the tiles took is nearly all the time it used: in a test process the
/// server's figures would share the process with every test running beside it.
@Suite("mandel serve's processor time")
struct ServeProcessorTimeTests {
    /// A sent tile's time is its render's and its PNG encoding's (on a thread of its own). With
    /// `--compression small` a 1024×1024 tile's encoding is nine tenths of it (0.33 s of 0.36 s), so a
    /// count that leaves it out is a tenth of what the process used; what the tiles do not count
    /// (parsing the request, sending the PNG through a debug build's NIO, the idle monitor) measured 4%
    /// of it. (At the default compression the encoding is a fifth of a tile's time and the part not
    /// counted as much again: no bound tells the two apart.)
    @Test(
        "a sent tile counts its render's and its encoding's processor time: /stats' cpu_seconds is 0.8–1 of the server's"
    )
    func sentTileCountsItsEncoding() throws {
        let server = try ServeProcess(["--compression", "small"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let pid = server.process.processIdentifier
        let tile = "/tile?strategy=serial&size=1024x1024&iterations=64&window=0,0,1024,1024"
        // The first tile pays for what is done once (the palette, zlib's tables, the routes' first use).
        #expect(try HTTPConnection.get(tile, port: server.port, deadline: 60).status == 200)
        // A tile is counted once its last byte went out, after the client may have read it: on a loaded
        // machine /stats read at once missed the first tile, and 5 tiles' time was set against 4's.
        let countedBefore = try Self.stats(port: server.port, sent: 1).seconds("cpu_seconds", of: "serial")
        let usedBefore = SpawnedMandel.processorSeconds(of: pid)
        for _ in 0..<4 {
            #expect(try HTTPConnection.get(tile, port: server.port, deadline: 60).status == 200)
        }
        let stats = try Self.stats(port: server.port, sent: 5)
        let usedAfter = SpawnedMandel.processorSeconds(of: pid)
        let counted = stats.seconds("cpu_seconds", of: "serial") - countedBefore
        let used = usedAfter - usedBefore
        // The kernel's figure is in clock ticks: a tick either side of each reading.
        let tick = 1 / Double(sysconf(Int32(_SC_CLK_TCK)))
        #expect(
            counted >= 0.8 * (used - 2 * tick) && counted <= used + 2 * tick,
            "the tiles counted \(counted) s of the \(used) s the server used")
        _ = try server.stop(with: SIGTERM)
    }

    /// A tile whose client goes while its PNG is encoded (its render done, its slot given back) is
    /// wasted: counted once as such, with the processor time of its render and its encoding, and
    /// never as sent or cancelled. The test closes the connection the moment `/stats` shows the
    /// render's end; on a loaded machine the encoding (about 0.2 s with `--compression small`) may
    /// still beat it, and the tile is sent: then it tries again, at most three times.
    @Test("a tile whose client goes while its PNG is encoded is counted wasted, with its processor time, never sent")
    func wastedWhileEncoding() throws {
        let server = try ServeProcess(["--compression", "small"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let pid = server.process.processIdentifier
        // About 0.2 s to render (serial, near the boundary) and as long to encode.
        let tile =
            "/tile?strategy=serial&size=1024x1024&center=-0.7435,0.1314&zoom=200&iterations=4000"
            + "&window=0,0,1024,1024"
        var outcomes: [String] = []
        for attempt in 1...3 {
            let before = try StatsReading.fetch(port: server.port)
            let usedBefore = SpawnedMandel.processorSeconds(of: pid)
            let connection = try HTTPConnection(port: server.port)
            try connection.send(get: tile)
            try waitUntil("tile \(attempt) to render") {
                try StatsReading.fetch(port: server.port).count("rendering", in: "queue") == 1
            }
            try waitUntil("tile \(attempt)'s render to end") {
                try StatsReading.fetch(port: server.port).count("rendering", in: "queue") == 0
            }
            connection.close()
            var after = before
            try waitUntil("tile \(attempt) to be counted as ended") {
                after = try StatsReading.fetch(port: server.port)
                return after.count("tiles_sent", of: "serial") + after.count("tiles_wasted", of: "serial")
                    > before.count("tiles_sent", of: "serial") + before.count("tiles_wasted", of: "serial")
            }
            let used = SpawnedMandel.processorSeconds(of: pid) - usedBefore
            let added = { (key: String) in after.count(key, of: "serial") - before.count(key, of: "serial") }
            #expect(added("tiles_requested") == 1 && added("tiles_cancelled") == 0 && added("tiles_failed") == 0)
            #expect(added("tiles_sent") + added("tiles_wasted") == 1)
            let cpu = after.seconds("cpu_seconds", of: "serial") - before.seconds("cpu_seconds", of: "serial")
            let wastedCPU =
                after.seconds("cpu_seconds_wasted", of: "serial") - before.seconds("cpu_seconds_wasted", of: "serial")
            if added("tiles_wasted") == 1 {
                outcomes.append("wasted")
                // Its render and its encoding: each at least 0.05 s on any machine this runs on.
                let tick = 1 / Double(sysconf(Int32(_SC_CLK_TCK)))
                #expect(
                    abs(wastedCPU - cpu) < 1e-9 && cpu >= 0.1 && cpu <= used + 2 * tick,
                    "wasted \(wastedCPU) s of \(cpu) s; the server used \(used) s")
                break
            }
            outcomes.append("sent")
            #expect(wastedCPU == 0, "a sent tile wasted \(wastedCPU) s")
        }
        #expect(outcomes.last == "wasted", "every try's tile was sent before its client went: \(outcomes)")
        _ = try server.stop(with: SIGTERM)
    }

    /// `/stats` once `sent` serial tiles have been counted as sent (at most 30 s).
    static func stats(port: Int, sent: Int) throws -> StatsReading {
        var stats = try StatsReading.fetch(port: port)
        try waitUntil("\(sent) tiles counted as sent") {
            stats = try StatsReading.fetch(port: port)
            return stats.count("tiles_sent", of: "serial") >= sent
        }
        #expect(stats.count("tiles_sent", of: "serial") == sent)
        return stats
    }
}
