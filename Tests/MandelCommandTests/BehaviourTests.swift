import Foundation
import ProcessTestSupport
import StrategyCatalog
import Testing

/// What `--heartbeat`, `--tile-wait` and `--cancel-after` measure, checked for structure and
/// direction against the real binary, never for absolute times.
@Suite("Behaviour beyond throughput")
struct BehaviourTests {
    /// A render of a third of a second alone on a fast core (Zen 5), longer under load: long enough
    /// for the heartbeat to see a stall, and for a scheduling delay of the main thread while other
    /// tests run (tens of milliseconds on two cores) to stay well under half of gcd's wall time.
    /// At 3,000 iterations gcd took 53 ms here and a loaded CI run saw the main queue held for half.
    static let longRender = ["--size", "800x600", "--iterations", "50000", "--workers", "2"]

    static func renderJSON(_ arguments: [String]) throws -> [String: Any] {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["render", "--json", "-o", "p.png"] + arguments, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    static func compareJSON(_ arguments: [String]) throws -> [[String: Any]] {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["compare", "--warmup", "0", "--json", "c.json"] + arguments, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let export = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/c.json")))
                as? [String: Any])
        return try #require(export["results"] as? [[String: Any]])
    }

    @Test("serial holds the main queue for its whole render; gcd leaves it free")
    func mainQueueStall() throws {
        let serial = try Self.renderJSON(Self.longRender + ["--strategy", "serial"])
        let serialQueue = try #require(serial["main_queue"] as? [String: Any])
        let serialWall = try #require(serial["wall_seconds"] as? Double)
        #expect(try #require(serialQueue["max"] as? Double) >= serialWall / 2)
        // A stall of length max spans at least ⌊max/frame⌋ boundaries between ticks, so at least
        // ⌊max/frame⌋ − 1 whole frames without one; and no more frames than the render lasted.
        let frame = 1.0 / 60
        let serialMax = try #require(serialQueue["max"] as? Double)
        let missed = try #require(serialQueue["missed_frames"] as? Int)
        #expect(
            missed >= Int((serialMax / frame).rounded(.down)) - 1, "\(missed) frames missed in a \(serialMax) s stall")
        // The heartbeat ticks a little before and after the render (up to a second apart on a loaded machine).
        #expect(Double(missed) <= (serialWall + 1) / frame, "\(missed) frames missed in \(serialWall) s")
        #expect(serialMax <= serialWall + 0.1, "the main queue was late by more than the render lasted")

        let gcd = try Self.renderJSON(Self.longRender + ["--strategy", "gcd"])
        let gcdQueue = try #require(gcd["main_queue"] as? [String: Any])
        let gcdWall = try #require(gcd["wall_seconds"] as? Double)
        #expect(try #require(gcdQueue["max"] as? Double) < gcdWall / 2)
        #expect(try #require(gcdQueue["ticks"] as? Int) > 10)
    }

    @Test("--heartbeat off measures nothing, and says so with null")
    func heartbeatOff() throws {
        let report = try Self.renderJSON(["--size", "64x48", "--heartbeat", "off"])
        #expect(report["main_queue"] is NSNull)
    }

    @Test("every strategy's peak threads are at least its workers, in compare's JSON and CSV")
    func peakThreads() throws {
        let results = try Self.compareJSON(["--size", "160x120", "--runs", "1", "--workers", "3", "--tile", "16"])
        #expect(results.count == StrategyCatalog.names.count)
        for result in results {
            let workers = try #require(result["workers"] as? Int)
            let peak = try #require(result["peak_threads"] as? Int, "\(result["strategy"] ?? "?")")
            #expect(peak >= workers, "\(result["strategy"] ?? "?"): \(peak) threads for \(workers) workers")
            // Between a MiB and the machine's memory: a field of /proc/self/stat miscounted is far outside.
            let resident = try #require(result["peak_resident_bytes"] as? Int)
            #expect(
                resident > 1 << 20 && UInt64(resident) < ProcessInfo.processInfo.physicalMemory, "\(resident) bytes")
            let mainQueue = try #require(result["main_queue"] as? [String: Any])
            #expect(Set(mainQueue.keys) == ["p50", "p99", "max", "missed_frames", "ticks"])
        }
    }

    @Test(
        "after a cancel the completion comes, no thread is left, with the flag a worker starts at most one more tile",
        arguments: ["flag", "native"])
    func cancelAfter(mode: String) throws {
        // Long enough that the cancel comes first on a loaded machine: half a second uncancelled on
        // a fast one. (At 20,000 iterations it was 50 ms there, and a cancel timer late by 30 ms
        // under the parallel suite found the render already done: no cancel latency.)
        let results = try Self.compareJSON(
            [
                "--size", "800x600", "--iterations", "200000", "--workers", "2", "--runs", "1", "--cancel-after", "20",
                "--cancel-by", mode, "--tile", "32",
            ])
        for result in results {
            let name = result["strategy"] as? String ?? "?"
            let latency = try #require(result["cancel_latency"] as? Double, "\(name) has no cancel latency")
            #expect(latency >= 0)
            #expect(try #require(result["threads_running_after_cancel"] as? Int) == 0, "\(name)")
            // Processor time after the cancel is spent in at most `latency` seconds of wall time, on
            // at most every processor, plus what the process spends beside the render (the heartbeat,
            // the sampler, the clock's own grain).
            let cpuAfter = try #require(result["cpu_after_cancel"] as? Double)
            let processors = Double(ProcessInfo.processInfo.activeProcessorCount)
            #expect(
                cpuAfter >= 0 && cpuAfter <= latency * processors + 0.05,
                "\(name): \(cpuAfter) s of processor time in the \(latency) s after its cancel")
            let tilesAfter = try #require(result["tiles_after_cancel"] as? Double)
            // A worker may have passed the flag's check just before the request: one tile each at most.
            if mode == "flag" { #expect(tilesAfter <= 2, "\(name) started \(tilesAfter) tiles after the cancel") }
        }
    }

    @Test("render --cancel-after writes no picture, exits 0 and reports how the strategy stopped")
    func renderCancelAfter() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--json", "-o", "p.png", "--cancel-after", "30", "--strategy", "tasks"] + Self.longRender,
            in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(report["cancelled"] as? Bool == true)
        #expect(report["cancel_latency"] is Double)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("--tile-wait leaves every pixel as it was, blocking or async", arguments: ["blocking", "async"])
    func tileWaitKeepsPixels(mode: String) throws {
        let workload = ["--size", "128x96", "--tile", "32", "--workers", "4"]
        // Without waits every strategy and split gives serial's pixels (IdenticalOutputTests).
        let plain = try Self.renderJSON(workload + ["--strategy", "serial"])
        // Each split: a static one makes a worker's share wait between its tiles (the gcd and
        // operation strategies chain their waits), the dynamic one waits between tiles taken.
        for split in ["bands", "rows", "tiles"] {
            for strategy in StrategyCatalog.names {
                let waiting = try Self.renderJSON(
                    workload + ["--strategy", strategy, "--split", split, "--tile-wait", "1", "--tile-wait-mode", mode])
                #expect(waiting["checksum"] as? String == plain["checksum"] as? String, "\(strategy), \(split)")
            }
        }
        // And the waits are waited, with the tiles split and the rows split: 12 tiles among at most 4
        // workers give some worker at least 3 tiles, so at least two waits of 10 ms between its tiles;
        // interleaved rows give each worker 24 rows, each a tile. (A bound of one 1 ms wait could not
        // fail: on a fast processor the render alone takes longer than that. The bands split gives
        // each of the 4 workers one band, one tile: no wait between tiles to measure.) gcd chains a
        // static share's blocks through its waits, apart from the blocks that take tiles: a share that
        // forgot to wait rendered its rows back to back, and only the tiles split was measured here.
        for split in ["rows", "tiles"] {
            for strategy in StrategyCatalog.names {
                let waiting = try Self.renderJSON(
                    workload + [
                        "--strategy", strategy, "--split", split, "--tile-wait", "10", "--tile-wait-mode", mode,
                    ])
                #expect(
                    try #require(waiting["wall_seconds"] as? Double) >= 0.020, "\(strategy), \(split) did not wait")
            }
        }
    }

    @Test(
        "a wait mode, a cancel mode or an overhead row without what it qualifies is refused",
        arguments: [
            ["render", "--tile-wait-mode", "async"], ["render", "--cancel-by", "native"],
            ["render", "--heartbeat", "0"], ["render", "--tile-wait", "2000"],
            ["compare", "--heartbeat", "off", "--heartbeat-overhead"],
        ])
    func refusals(arguments: [String]) throws {
        let result = try MandelProcess.run(arguments + ["--size", "64x48"])
        #expect(result.status == 64, "\(result.standardError)")
    }

    @Test("sweep --tile-wait measures each wait as a point, in the JSON and the CSV")
    func sweepTileWait() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "sweep", "--size", "64x48", "--tile", "16", "--workers", "4", "--strategies", "gcd", "--runs", "1",
                "--warmup", "0", "--tile-wait", "0,0.5,2", "--tile-wait-mode", "async", "--json", "s.json", "--csv",
                "s.csv",
            ],
            in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        // The table's head names each point as given, a fraction of a millisecond too.
        let head = result.standardOutput.split(separator: "\n").first { $0.hasPrefix("strategy") }
        #expect(
            head?.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                == "strategy wait 0 ms wait 0.5 ms wait 2 ms", "\(result.standardOutput)")
        let export = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/s.json")))
                as? [String: Any])
        let points = try #require(export["points"] as? [[String: Any]])
        #expect(points.compactMap { $0["tile_wait"] as? Double } == [0, 0.0005, 0.002])
        let csv = try String(contentsOfFile: folder + "/s.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.first?.hasPrefix("point_workers,point_tile,point_tile_wait,strategy,") == true)
        #expect(csv.count == 1 + 3 * 2, "a row per point and strategy (serial and gcd)")
    }

    @Test("the trace carries the main queue's lateness and the process's threads as counter tracks")
    func traceCounters() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // serial renders on the main queue: its heartbeat runs late by about the render's time, a figure
        // both the trace's lateness track and the JSON's main queue hold.
        let result = try MandelProcess.run(
            [
                "render", "--strategy", "serial", "--size", "400x300", "--iterations", "2000", "-o", "p.png", "--trace",
                "t.json", "--json",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let trace = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/t.json")))
                as? [String: Any])
        let events = try #require(trace["traceEvents"] as? [[String: Any]])
        let counters = Set(events.filter { $0["ph"] as? String == "C" }.compactMap { $0["name"] as? String })
        #expect(counters == ["main queue lateness (ms), most per frame", "process threads"])
        let threads = events.filter { $0["name"] as? String == "process threads" }
            .compactMap { ($0["args"] as? [String: Any])?["value"] as? Double }
        #expect(threads.contains { $0 >= 2 }, "the main thread and the render's queues are among the process's threads")
        // The track's values are each frame's most lateness in ms: the largest is the heartbeat's max (the
        // JSON's, in seconds, read from its histogram: within its 1% buckets), never more.
        let lateness = events.filter { $0["name"] as? String == "main queue lateness (ms), most per frame" }
            .compactMap { ($0["args"] as? [String: Any])?["value"] as? Double }
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let maximum = try #require((report["main_queue"] as? [String: Any])?["max"] as? Double) * 1000
        let largest = try #require(lateness.max(), "no lateness in the trace")
        #expect(
            largest >= 0.5 * maximum && largest <= 1.01 * maximum + 0.01,
            "the track's most \(largest) ms, the JSON's max \(maximum) ms")
    }
}
