import Foundation
import ProcessTestSupport
import Testing

/// `mandel serve` when what it runs fails: a helper that dies, helpers that keep dying, a deep
/// view whose reference orbit the process cannot have. The server answers each, and goes on.
@Suite("mandel serve recovers")
struct ServeRecoveryTests {
    /// A tile of 64×48 pixels, 4×4 of 16×12 tiles of the process strategy's helpers.
    static let tile = "/tile?strategy=process&size=64x48&iterations=300&window=0,0,64,48"

    /// Runs `mandel <command> -o FILE` in a fresh folder and returns the file's bytes.
    private func rendered(_ command: String) throws -> [UInt8] {
        let folder = NSTemporaryDirectory() + "mandel-serve-recovery-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let words = command.split(separator: " ").map(String.init)
        let result = try MandelProcess.run(words + ["-o", "tile.png"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/tile.png")))
    }

    @Test("a helper that dies costs a retry: the tile is its command's bytes, and the server and its pool go on")
    func helperDies() throws {
        // Every first helper dies (SIGSEGV) at its first tile request: each slot's replacement (its
        // second generation, which never dies) renders the tiles, and stays in the pool.
        let server = try ServeProcess(
            ["--tile", "16x12"], environment: ["MANDEL_HELPER_FAULTS": "segv:*.0@0"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let reply = try HTTPConnection.get(Self.tile, port: server.port, deadline: 60)
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        let command = try #require(reply.headers["x-mandel-command"])
        #expect(reply.body == (try rendered(command)), "the tile after a helper's death is not its command's file")
        try waitForSent(1, of: "process", port: server.port)
        let stats = try StatsReading.fetch(port: server.port)
        #expect(stats.count("tiles_sent", of: "process") == 1 && stats.count("tiles_failed", of: "process") == 0)
        // The pool keeps the replacements (one slot may have taken the other's, kept already), and
        // serves on: the next tile's helpers are the kept ones, and one more where a slot found the
        // pool empty.
        let helpers = server.helpers
        #expect((1...2).contains(helpers.count), "helpers \(helpers)")
        let again = try HTTPConnection.get(Self.tile.replacing("window=0,0", with: "window=64,0"), port: server.port)
        #expect(again.status == 200)
        let after = server.helpers
        // (A helper that misses its deadline on a loaded machine is replaced too: at least one is kept, never more
        // than the workers.)
        #expect(!helpers.isDisjoint(with: after) && after.count <= 2, "helpers \(helpers), then \(after)")
        try waitForSent(2, of: "process", port: server.port)
        let stats2 = try StatsReading.fetch(port: server.port)
        #expect(stats2.count("tiles_sent", of: "process") == 2 && stats2.count("tiles_failed", of: "process") == 0)
        #expect(try server.stop(with: SIGTERM) < 2)
        #expect(server.process.terminationStatus == 0)
    }

    @Test("helpers that keep dying fail that tile with 503 and one line; the server answers on")
    func helpersKeepDying() throws {
        // Every helper dies at its first tile request: each slot gives up after three in a row.
        let server = try ServeProcess(["--tile", "16x12"], environment: ["MANDEL_HELPER_FAULTS": "exit:*.*@0"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let reply = try HTTPConnection.get(Self.tile, port: server.port, deadline: 60)
        #expect(reply.status == 503, "\(reply.status) \(reply.text.prefix(300))")
        #expect(reply.text.hasPrefix("helper processes kept failing"), "\(reply.text)")
        #expect(reply.text.split(separator: "\n").count == 1)
        let stats = try StatsReading.fetch(port: server.port)
        #expect(stats.count("tiles_failed", of: "process") == 1 && stats.count("tiles_sent", of: "process") == 0)
        // The failed tile is the strategy's only one: its processor time (starting and losing six helpers)
        // is all of the strategy's, and all of it wasted.
        let cpu = stats.seconds("cpu_seconds", of: "process")
        let wasted = stats.seconds("cpu_seconds_wasted", of: "process")
        #expect(cpu > 0 && wasted == cpu, "cpu \(cpu) s, wasted \(wasted) s")
        #expect(try HTTPConnection.get("/health", port: server.port).text == "ok\n")
        // Another strategy's tile is served meanwhile.
        let gcd = try HTTPConnection.get(
            Self.tile.replacing("strategy=process", with: "strategy=gcd"), port: server.port)
        #expect(gcd.status == 200)
        #expect(try server.stop(with: SIGINT) < 2)
        #expect(server.process.terminationStatus == 0)
    }
}

/// Resource limits, apart: AddressSanitizer reserves terabytes of address space, which
/// `ulimit -v` refuses, so scripts/test skips this suite in its ASan leg.
@Suite("mandel serve under resource limits")
struct ServeLimitTests {
    @Test("a deep view whose reference orbit the process cannot have is 503 with render's line, before any work")
    func orbitMemory() throws {
        // As nobody under 'ulimit -v' (root is exempt from no limit, but nobody is the usual case).
        let server = try ServeProcess(
            [], launch: .init(shellSetup: "ulimit -v 1500000", asNobody: true))
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let deep =
            "/tile?size=256x256&center=-0.75,0.1&zoom=1e40&period=off&iterations=10000000&window=0,0,64,64&strategy=thread"
        let started = Date()
        let reply = try HTTPConnection.get(deep, port: server.port, deadline: 60)
        #expect(reply.status == 503, "\(reply.status) \(reply.text.prefix(300))")
        #expect(reply.text.hasPrefix("not enough memory: a 64x64 picture with a reference orbit"), "\(reply.text)")
        #expect(Date().timeIntervalSince(started) < 5, "refused only after work")
        let stats = try StatsReading.fetch(port: server.port)
        #expect(stats.count("tiles_failed", of: "thread") == 1)
        #expect(try HTTPConnection.get("/health", port: server.port).text == "ok\n")
        let shallow = try HTTPConnection.get("/tile?size=64x48&window=0,0,64,48&strategy=thread", port: server.port)
        #expect(shallow.status == 200)
        _ = try server.stop(with: SIGTERM)
    }
}
