import Deadline
import Foundation
import ProcessTestSupport
import Testing

/// Issue 33's reports that contradicted themselves: a cancel that came after the render
/// finished, negative durations, figures with nothing measured, rates over a partial time.
@Suite("Reliability, round three: reports that agree with themselves")
struct AgreeingReportTests {
    /// Runs `mandel` with `arguments` and `--json` in `folder` and returns its report.
    static func report(_ arguments: [String], in folder: String) throws -> [String: Any] {
        let result = try MandelProcess.run(arguments + ["--json"], in: folder)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        let data = Data(result.standardOutput.utf8)
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any], "\(result.standardOutput)")
    }

    /// A render's report is either finished, with its picture, or cancelled no earlier than
    /// asked and before its completion, with durations that are never negative and no picture.
    static func expectConsistentCancel(
        _ report: [String: Any], askedMilliseconds: Double, picture: String, in folder: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let written = FileManager.default.fileExists(atPath: folder + "/" + picture)
        let wall = report["wall_seconds"] as? Double ?? -1
        guard report["cancelled"] as? Bool == true else {
            #expect(report["cancelled"] as? Bool == false, sourceLocation: sourceLocation)
            #expect(written, "a finished render wrote no picture", sourceLocation: sourceLocation)
            #expect(report["output"] as? String == picture, sourceLocation: sourceLocation)
            // Finished first: the cancel had not come by the completion.
            #expect(wall * 1000 <= askedMilliseconds + 1000, sourceLocation: sourceLocation)
            return
        }
        #expect(!written, "a cancelled render left its picture", sourceLocation: sourceLocation)
        // It names no output and no checksum, and its rate counts the pixels it finished, at most the
        // picture's (all of them when the cancel came after the last tile, before the completion reached
        // the main queue).
        #expect(report["output"] is NSNull && report["checksum"] is NSNull, sourceLocation: sourceLocation)
        let pixels = (report["width"] as? Int ?? 0) * (report["height"] as? Int ?? 0)
        if let rate = report["megapixels_per_second"] as? Double {
            #expect(
                rate * wall * 1e6 <= Double(pixels) + 0.5, "\(rate) Mpixel/s over \(wall) s is more than the picture",
                sourceLocation: sourceLocation)
        }
        let requested = report["cancel_requested_seconds"] as? Double ?? -1
        let latency = report["cancel_latency"] as? Double ?? -1
        let cpuAfter = report["cpu_after_cancel"] as? Double ?? -1
        #expect(
            requested * 1000 >= askedMilliseconds && requested <= wall,
            "cancel requested at \(requested) s of \(wall) s, asked for \(askedMilliseconds) ms",
            sourceLocation: sourceLocation)
        #expect((0...30).contains(latency), "latency \(latency) s", sourceLocation: sourceLocation)
        // Two processors at most are busy after the request, for at most the latency (and a tick).
        #expect(
            cpuAfter >= 0 && cpuAfter <= 2 * latency + 0.05, "cpu after the cancel \(cpuAfter) s in \(latency) s",
            sourceLocation: sourceLocation)
    }

    @Test("--cancel-after counts from the render's start: never a negative time, never earlier than asked")
    func cancelNoEarlierThanAsked() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Long enough (a second or more) that the cancel comes first on any machine.
        let long = [
            "render", "--size", "400x300", "--iterations", "200000", "--center", "-0.1225,0.7449", "-o", "l.png",
        ]
        for asked in [0.0, 2, 5] {
            let report = try Self.report(long + ["--cancel-after", "\(asked)"], in: folder)
            #expect(report["cancelled"] as? Bool == true, "\(asked) ms: the render finished first")
            // A second or more of work cancelled within milliseconds: some of the picture is unfinished.
            let rate = report["megapixels_per_second"] as? Double ?? 0
            let wall = report["wall_seconds"] as? Double ?? 0
            #expect(rate * wall * 1e6 < 400 * 300 - 0.5, "\(asked) ms: the rate counts the whole picture")
            Self.expectConsistentCancel(report, askedMilliseconds: asked, picture: "l.png", in: folder)
        }
    }

    @Test("a cancel planned for while the last band is written comes too late: the render finished, with its picture")
    func cancelAfterTheLastTile() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Few iterations, slow compression: the last band's writing lasts longer than its rendering.
        let render = [
            "render", "--size", "1600x1600", "--iterations", "1", "--color", "gray", "--compression", "small", "-o",
            "w.png",
        ]
        let plain = try Self.report(render, in: folder)
        let wall = try #require(plain["wall_seconds"] as? Double)
        let write = try #require(plain["write_seconds"] as? Double)
        try FileManager.default.removeItem(atPath: folder + "/w.png")
        // The cancel is due halfway through the writing: after the last tile, before the completion.
        for attempt in 0..<3 {
            let asked = ((wall + write * Double(attempt + 1) / 4) * 1000).rounded()
            let report = try Self.report(render + ["--cancel-after", "\(asked)"], in: folder)
            Self.expectConsistentCancel(report, askedMilliseconds: asked, picture: "w.png", in: folder)
            try? FileManager.default.removeItem(atPath: folder + "/w.png")
        }
    }

    /// Every tile is done at once (one iteration); the picture, a bitmap of 480 KB, then waits on a
    /// named pipe whose reader takes nothing for a second, past the cancel's time (half a second).
    /// The render was finished before its cancel came: it is not cancelled, and the reader gets it whole.
    @Test("a cancel due after the last tile, while a reader holds off the picture, cancels nothing")
    func cancelWhileTheReaderWaits() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o644) == 0)
        // Open for reading and writing: mandel finds a reader, and its writes stop at the pipe's 64 KiB.
        let held = open(fifo, O_RDWR)
        try #require(held >= 0)
        let process = try MandelProcess.start(
            [
                "render", "--size", "2400x1600", "--iterations", "1", "--color", "bw", "--format", "pbm", "-o", "fifo",
                "--cancel-after", "500", "--json",
            ], in: folder)
        usleep(1_000_000)
        let reader = try #require(FileHandle(forReadingAtPath: fifo))
        close(held)
        let watchdog = MandelProcess.Watchdog(process, seconds: MandelProcess.deadlineSeconds)
        let picture = reader.readDataToEndOfFile()
        let output = (process.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if watchdog.disarm() {
            throw DeadlinePassed(waitingFor: "mandel writing to a named pipe", seconds: MandelProcess.deadlineSeconds)
        }
        #expect(process.terminationStatus == 0)
        let report = try #require(JSONSerialization.jsonObject(with: output) as? [String: Any])
        #expect(report["cancelled"] as? Bool == false, "\(report)")
        #expect(picture.count == 300 * 1600 + "P4\n2400 1600\n".utf8.count, "\(picture.count) bytes")
    }

    /// Linux's `ru_maxrss` keeps the high-water mark of what the process ran before `exec`: a
    /// `mandel` started by a large program would report that program's memory as its own.
    @Test("the peak resident memory is the render's own, not that of the program that started it")
    func peakIsItsOwn() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Python fills 300 MiB, then becomes mandel (exec): a 64×48 picture in bands needs about 25 MiB.
        let starter = Process()
        starter.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        starter.arguments = [
            "-c",
            "import os, sys\nheld = bytearray(300 << 20)\nfor i in range(0, len(held), 4096): held[i] = 1\n"
                + "os.execv(sys.argv[1], sys.argv[1:])",
            MandelProcess.executable.path, "render", "--size", "64x48", "--band-height", "8", "-o", "s.png", "--json",
        ]
        starter.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = Pipe()
        starter.standardOutput = output
        try starter.run()
        let watchdog = MandelProcess.Watchdog(starter, seconds: MandelProcess.deadlineSeconds)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        starter.waitUntilExit()
        if watchdog.disarm() {
            throw DeadlinePassed(waitingFor: "mandel started by python3", seconds: MandelProcess.deadlineSeconds)
        }
        #expect(starter.terminationStatus == 0)
        let report = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let peak = try #require(report["peak_resident_bytes"] as? Int)
        #expect(peak > 4 << 20 && peak < 150 << 20, "peak resident \(peak >> 20) MiB for a 64×48 picture")
    }

    @Test("a render that finishes long before its cancel is finished, and does not wait for the cancel's time")
    func cancelNeverComes() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = Date()
        let report = try Self.report(["render", "--size", "16", "-o", "s.png", "--cancel-after", "20000"], in: folder)
        #expect(Date().timeIntervalSince(started) < 15, "the process waited for the cancel's time")
        Self.expectConsistentCancel(report, askedMilliseconds: 20000, picture: "s.png", in: folder)
        #expect(report["cancelled"] as? Bool == false)
    }

    @Test("with no tick due, the main queue's figures are absent: null in JSON, 'no ticks' in the line, never zero")
    func heartbeatWithNoTicks() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let short = ["render", "--size", "64x48", "-o", "h.png", "--heartbeat", "1000"]
        let report = try Self.report(short, in: folder)
        let mainQueue = try #require(report["main_queue"] as? [String: Any])
        #expect(mainQueue["ticks"] as? Int == 0)
        for key in ["p50", "p99", "max", "missed_frames"] {
            #expect(mainQueue[key] is NSNull, "\(key): \(mainQueue[key] ?? "absent")")
        }
        let line = try MandelProcess.run(short, in: folder)
        #expect(line.standardOutput.contains("main queue: no ticks"), "\(line.standardOutput)")
        #expect(!line.standardOutput.contains("missed frame"), "\(line.standardOutput)")
        let compare = try MandelProcess.run(
            [
                "compare", "--size", "32", "--runs", "2", "--warmup", "0", "--strategies", "gcd", "--heartbeat", "1000",
                "--json", "c.json",
            ], in: folder)
        #expect(compare.status == 0, "\(compare.standardError)")
        let results = try #require(jsonObject(atPath: folder + "/c.json")["results"] as? [[String: Any]])
        for result in results {
            let figures = try #require(result["main_queue"] as? [String: Any])
            #expect(figures["max"] is NSNull && figures["missed_frames"] is NSNull, "\(figures)")
        }
    }

    @Test("a cancelled run's main-queue lateness is the run's, not the instrument's own look at the threads after it")
    func heartbeatAfterCancel() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The look at the threads after a cancel holds the main queue for 50 ms: the least of three
        // cancelled runs of a few milliseconds stays well below that unless it is counted.
        var least = Double.infinity
        for _ in 0..<3 {
            let report = try Self.report(
                [
                    "render", "--size", "400x300", "--iterations", "200000", "-o", "c.png", "--cancel-after", "1",
                    "--strategy", "thread",
                ], in: folder)
            #expect(report["cancelled"] as? Bool == true)
            let mainQueue = try #require(report["main_queue"] as? [String: Any])
            least = min(least, mainQueue["max"] as? Double ?? 0)
        }
        #expect(least < 0.045, "the main queue was late by \(least) s at best in cancelled runs of a few ms")
    }

    @Test("user and system seconds are never negative, and add up to cpu seconds, with a fast heartbeat too")
    func processorTimeNeverNegative() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for run in 0..<12 {
            let report = try Self.report(
                ["render", "--size", "400x300", "--heartbeat", "0.1", "-o", "u.png"]
                    + (run % 2 == 0 ? [] : ["--band-height", "50"]), in: folder)
            let user = try #require(report["user_seconds"] as? Double)
            let system = try #require(report["system_seconds"] as? Double)
            let cpu = try #require(report["cpu_seconds"] as? Double)
            let wall = try #require(report["wall_seconds"] as? Double)
            let write = try #require(report["write_seconds"] as? Double)
            #expect(user >= 0 && system >= 0, "run \(run): user \(user) s, system \(system) s")
            #expect(abs(user + system - cpu) < 1e-9)
            // At most two processors' worth over the render and its writing (and a tick).
            #expect(cpu <= 2 * (wall + write) + 0.02, "run \(run): cpu \(cpu) s in \(wall) s + \(write) s")
        }
    }

    @Test("workers are the workers the plan keeps busy in every output: compare's header, its rows and its JSON")
    func workersAgree() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // One 64x48 tile: the plan keeps one worker busy, whatever --workers asks.
        let compare = try MandelProcess.run(
            [
                "compare", "--size", "64x48", "--workers", "2", "--runs", "1", "--warmup", "0", "--strategies", "gcd",
                "--json", "c.json",
            ], in: folder)
        #expect(compare.status == 0, "\(compare.standardError)")
        #expect(compare.standardOutput.contains("1 worker (2 asked"), "\(compare.standardOutput)")
        #expect(!compare.standardOutput.contains("2 workers"), "\(compare.standardOutput)")
        let json = try jsonObject(atPath: folder + "/c.json")
        let workload = try #require(json["workload"] as? [String: Any])
        #expect(workload["workers"] as? Int == 1 && workload["workers_requested"] as? Int == 2, "\(workload)")
        for result in try #require(json["results"] as? [[String: Any]]) {
            #expect(result["workers"] as? Int == 1, "\(result["strategy"] ?? "")")
        }
        let render = try Self.report(["render", "--size", "64x48", "--workers", "2", "-o", "r.png"], in: folder)
        #expect(render["workers"] as? Int == 1 && render["workers_requested"] as? Int == 2)
        // Busy time is per thread that ran tiles: as many entries as threads, and never fewer than workers.
        let busy = try #require(render["worker_busy_seconds"] as? [Double])
        let threads = try #require(render["threads_used"] as? Int)
        #expect(busy.count == max(threads, 1), "\(busy.count) entries for \(threads) threads")
    }

    @Test("the line says the preview was written exactly when it is there, whenever the cancel comes")
    func previewLineAfterCancel() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for asked in [0, 1, 2, 4, 8, 16, 40] {
            defer {
                try? FileManager.default.removeItem(atPath: folder + "/p.png")
                try? FileManager.default.removeItem(atPath: folder + "/q.png")
            }
            let result = try MandelProcess.run(
                [
                    "render", "--size", "400x300", "--iterations", "20000", "--preview", "8", "--preview-output",
                    "p.png", "-o", "q.png", "--cancel-after", "\(asked)",
                ], in: folder)
            #expect(result.status == 0, "\(result.standardError)")
            let placed = FileManager.default.fileExists(atPath: folder + "/p.png")
            let says = result.standardOutput.contains("only the preview written, to p.png")
            // A render quicker than the cancel (this view takes about 35 ms) is finished: both files, the usual line.
            if FileManager.default.fileExists(atPath: folder + "/q.png") {
                #expect(placed && !says, "--cancel-after \(asked), finished: \(result.standardOutput)")
                continue
            }
            #expect(
                says == placed,
                "--cancel-after \(asked): p.png \(placed ? "is" : "is not") there: \(result.standardOutput)")
        }
    }

    @Test("a file size limit names the write that failed, the preview's when it came first, and a preview that stays")
    func fileSizeLimitWithPreview() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 20,000 iterations: the picture takes some 35 ms, the preview a sixteenth of it, so the preview's
        // write comes first even on a loaded machine (at 256 the picture took 10 ms, and once wrote first).
        let render = [
            "render", "--size", "400x300", "--iterations", "20000", "--preview", "4", "--preview-output", "p.png",
            "-o", "q.png",
        ]
        // 2,048 bytes: the preview (about 6 KB) fails first, and the picture with it.
        let small = try MandelProcess.run(render, in: folder, launch: .init(shellSetup: "ulimit -f 4"))
        expectRefusal(small, status: 74, mentioning: "could not write 'p.png'", leaving: folder)
        // 29,696 bytes: the preview is put in place, the picture (about 46 KB) fails; the line says the preview stays.
        let large = try MandelProcess.run(render, in: folder, launch: .init(shellSetup: "ulimit -f 58"))
        expectRefusal(large, status: 74, mentioning: "could not write 'q.png'")
        #expect(large.firstErrorLine.contains("only p.png was written"), "\(large.firstErrorLine)")
        #expect(contents(of: folder) == ["p.png"], "\(contents(of: folder))")
    }
}
