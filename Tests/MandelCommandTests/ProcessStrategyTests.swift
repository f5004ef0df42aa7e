import Deadline
import Foundation
import ProcessTestSupport
import Testing

/// `--strategy process`: helper processes give the same bytes as every other strategy,
/// survive their helpers' deaths, and leave no process behind.
@Suite("Process strategy", .serialized)
struct ProcessStrategyTests {
    /// A small picture with enough tiles for deaths to land mid-render: 80 tiles.
    static let view = ["render", "--size", "320x240", "--iterations", "500", "--tile", "32x32"]
    static let picture = view + ["--workers", "2"]

    // MARK: - The same bytes

    /// Every colouring, each split, the centre-first order, a banded picture, supersampling and a Julia set.
    static let variants: [[String]] =
        ["bw", "gray", "smooth", "histogram"].flatMap { color in
            [
                ["--color", color, "--split", "tiles"],
                ["--color", color, "--split", "rows"],
                ["--color", color, "--split", "bands"],
                ["--color", color, "--order", "centre"],
                ["--color", color, "--band-height", "40"],
                ["--color", color, "--split", "bands", "--band-height", "40"],
            ]
        } + [
            ["--color", "bw", "--supersample", "3"],
            ["--color", "histogram", "--supersample", "2", "--band-height", "40"],
            ["--color", "smooth", "--julia", "-0.8,0.156", "--tile", "17x13"],
            ["--color", "bw", "--tile", "13x7"],
            ["--color", "smooth", "--workers", "3", "--palette", "fire"],
        ]

    @Test("process writes the same file as gcd", arguments: variants)
    func sameBytes(options: [String]) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let gcd = try MandelProcess.run(Self.picture + options + ["--strategy", "gcd", "-o", "gcd.png"], in: folder)
        let process = try MandelProcess.run(
            Self.picture + options + ["--strategy", "process", "-o", "process.png"], in: folder)
        #expect(gcd.status == 0, "\(gcd.standardError)")
        #expect(process.status == 0, "\(process.standardError)")
        #expect(try sameFiles(folder + "/gcd.png", folder + "/process.png"), "\(options)")
    }

    // MARK: - Deaths and bad answers, injected

    /// Every way a helper can fail that `MANDEL_HELPER_FAULTS` can make it, at one moment each.
    static let faults = [
        "trap:0.0@3", "segv:1.0@2", "exit:0.0@1", "hang:1.0@4", "garbage:0.0@2", "short:1.0@1", "foreign:0.0@0",
        "oversize:1.0@5", "overcount:0.0@2", "future:1.0@1",
    ]

    @Test("a helper that dies, hangs or answers badly costs one replacement and no pixel", arguments: faults)
    func injectedFault(fault: String) throws {
        let render = try renderWithFaults(
            Self.picture + ["--split", "rows"], faults: fault, helperDeadline: "2", within: 20,
            "the render with fault \(fault)")
        #expect(render.result.status == 0, "\(render.result.standardError)")
        #expect(render.seconds < 10)
        #expect(render.report["helper_crashes"] as? Int == 1, "\(fault): \(render.report["helper_crashes"] ?? "none")")
        let retried = render.report["work_retried"] as? Int ?? -1
        #expect((1...2).contains(retried), "\(fault): \(retried) tiles sent again")
        #expect(render.sameAsGCD, "\(fault)")
        try expectNoHelpers(of: render.parent, within: 2)
    }

    /// One worker, 80 tiles of 32×32: when the helper receives its last request (tile 79), the
    /// slot's source has run dry, and the tile it dies with is the only one left to send again.
    @Test("a helper that dies at the last tile, with none left to hand out, still has that tile sent again")
    func deathAtTheLastTile() throws {
        let render = try renderWithFaults(
            Self.view + ["--workers", "1"], faults: "trap:0.0@79", within: 20,
            "the render whose helper traps at its last tile")
        #expect(render.result.status == 0, "\(render.result.standardError)")
        #expect(render.report["helper_crashes"] as? Int == 1)
        #expect(render.report["work_retried"] as? Int == 1)
        #expect(render.sameAsGCD)
    }

    /// The helper that takes the dead one's place receives the reference orbit in its recipe too.
    @Test("a helper that dies during a deep render is replaced, gets the orbit, and the picture is gcd's")
    func deathAtDepth() throws {
        let render = try renderWithFaults(
            DeepZoomCommandTests.location1e14 + ["--color", "smooth", "--split", "rows"], faults: "trap:0.0@1",
            within: 20,
            "the deep render whose helper traps at its second tile")
        #expect(render.result.status == 0, "\(render.result.standardError)")
        #expect(render.report["helper_crashes"] as? Int == 1)
        #expect(render.report["precision"] as? String == "perturbation")
        #expect(render.sameAsGCD)
        try expectNoHelpers(of: render.parent, within: 2)
    }

    @Test("helpers that die before finishing a tile, three in a row, fail the render: 69, one line, no file")
    func restartLimit() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let process = try MandelProcess.start(
            Self.picture + ["--strategy", "process", "-o", "never.png"], in: folder,
            environment: ["MANDEL_HELPER_FAULTS": "trap:*.*@0"])
        let result = try finish(process, within: 20, "the render whose helpers all trap")
        #expect(result.status == 69)
        #expect(
            result.standardError.hasPrefix("mandel: helper processes kept failing: helper ")
                && result.standardError.contains("failed 3 times in a row"),
            "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
        try expectNoHelpers(of: process.processIdentifier, within: 2)
    }

    @Test("helpers that trap at their third tile still finish two each: the render goes on and counts every death")
    func repeatedTraps() throws {
        let render = try renderWithFaults(
            Self.picture + ["--split", "rows"], faults: "trap:0.*@2", within: 30,
            "the render whose helpers trap at their third tile")
        #expect(render.result.status == 0, "\(render.result.standardError)")
        let report = render.report
        // Slot 0 has 120 rows. Each of its helpers finishes two, and traps when the third request
        // arrives, the fourth already asked for: both are sent again. The 60th finishes the last two.
        #expect(report["helper_crashes"] as? Int == 59)
        #expect(report["work_retried"] as? Int == 118)
        #expect(render.sameAsGCD)
    }

    // MARK: - Deaths from outside, at random moments

    /// A render of a few seconds with many tiles: time for kills to land while work remains. (25,000
    /// iterations: at 20,000 the packed narrow tiles and the cheaper memory check made it 11% shorter, and a
    /// second kill on a loaded machine found a helper already told its pass was over.)
    static let longRender = [
        "render", "--size", "600x600", "--center", "-0.1225,0.7449", "--zoom", "30", "--iterations", "25000",
        "--tile", "24x24", "--workers", "2",
    ]

    /// The reference render failed: what it said.
    struct ReferenceFailed: Error { let standardError: String }

    /// The long render's file made by `gcd`, once for every kill test (a static is made once, on first use).
    static let longRenderByGCD = Result { () throws -> Data in
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(longRender + ["--strategy", "gcd", "-o", "gcd.png"], in: folder)
        guard result.status == 0 else { throw ReferenceFailed(standardError: result.standardError) }
        return try Data(contentsOf: URL(fileURLWithPath: folder + "/gcd.png"))
    }

    @Test(
        "SIGKILL and SIGSEGV to helpers at two seeded random moments: the same picture, each death counted",
        arguments: [
            (SIGKILL, UInt64(1)), (SIGSEGV, UInt64(2)), (SIGKILL, UInt64(3)),
        ])
    func killedFromOutside(signal: Int32, seed: UInt64) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let expected = try Self.longRenderByGCD.get()
        let process = try MandelProcess.start(
            Self.longRender + ["--strategy", "process", "-o", "process.png", "--json"], in: folder)
        var random = SeededRandom(seed: seed)
        var kills = 0
        // The helpers first (a program starting on a loaded machine, or under a sanitizer, is slow).
        let started = Date().addingTimeInterval(10)
        while helperProcesses(of: process.processIdentifier).isEmpty && process.isRunning && Date() < started {
            usleep(5_000)
        }
        // Two kills: three could reach the restart limit, had they all landed before a replacement finished a tile.
        for _ in 0..<2 {
            usleep(UInt32(100_000 + random.next() % 150_000))
            // Between a death and its replacement a slot may have no helper: wait for one, briefly.
            let choice = random.next()
            let deadline = Date().addingTimeInterval(2)
            var helpers = helperProcesses(of: process.processIdentifier)
            while helpers.isEmpty && process.isRunning && Date() < deadline {
                usleep(5_000)
                helpers = helperProcesses(of: process.processIdentifier)
            }
            guard process.isRunning, !helpers.isEmpty else { break }
            if kill(helpers[Int(choice % UInt64(helpers.count))], signal) == 0 { kills += 1 }
        }
        let result = try finish(process, within: 60, "the render whose helpers were killed")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(kills >= 1, "no helper was there to kill: the render was too short")
        let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        #expect(report["helper_crashes"] as? Int == kills, "\(kills) kills")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/process.png")) == expected)
        try expectNoHelpers(of: process.processIdentifier, within: 2)
    }

    // MARK: - Behaviour

    @Test("peak threads count the helpers too: 8 serving threads and 8 helpers")
    func threadsSummedOverHelpers() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "800x600", "--iterations", "3000", "--workers", "8", "--strategy", "process"]
                + ["-o", "p.png", "--json"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        // The parent alone has its 8 serving threads, the main thread and a few of Dispatch's.
        let peak = report["peak_threads"] as? Int ?? 0
        #expect(peak >= 17 && peak <= 40, "\(peak) threads")
    }

    @Test("cpu counts the helpers' processor time: about the serial render's, at most two workers' over the wall time")
    func helpersProcessorTime() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // About a second of one processor's work.
        let view = ["render", "--size", "1200x800", "--iterations", "100000", "--workers", "2", "--json"]
        func measured(_ strategy: String) throws -> (cpu: Double, wall: Double) {
            let result = try MandelProcess.run(view + ["--strategy", strategy, "-o", "\(strategy).png"], in: folder)
            #expect(result.status == 0, "\(result.standardError)")
            let report = try #require(
                JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            return (try #require(report["cpu_seconds"] as? Double), try #require(report["wall_seconds"] as? Double))
        }
        let serial = try measured("serial")
        let process = try measured("process")
        // The helpers do the serial render's work, and start up and read their recipes besides; the
        // parent alone, which only hands out tiles and copies their rows, spends a small part of it.
        #expect(process.cpu >= 0.6 * serial.cpu, "process cpu \(process.cpu) s, serial \(serial.cpu) s")
        #expect(process.cpu <= 1.4 * serial.cpu + 0.2, "process cpu \(process.cpu) s, serial \(serial.cpu) s")
        // Two helpers, and a parent that mostly waits on their pipes.
        #expect(process.cpu <= 2 * process.wall + 0.25, "process cpu \(process.cpu) s in \(process.wall) s")
    }

    // MARK: - No orphans

    /// Inside the period-3 bulb, split in two bands: each helper works on one tile for many seconds.
    static let slowRender = [
        "render", "--size", "1200x1200", "--center", "-0.1225,0.7449", "--zoom", "30", "--iterations", "50000",
        "--split", "bands", "--workers", "2", "--strategy", "process", "--grace", "0",
    ]

    @Test(
        "SIGINT, SIGTERM or SIGKILL to the parent mid-tile leaves no helper within two seconds",
        arguments: [
            SIGINT, SIGTERM, SIGKILL,
        ])
    func parentSignalled(signal: Int32) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let process = try MandelProcess.start(Self.slowRender + ["-o", "big.png"], in: folder)
        let parent = process.processIdentifier
        let deadline = Date().addingTimeInterval(10)
        while helperProcesses(of: parent).count < 2 && Date() < deadline { usleep(10_000) }
        #expect(helperProcesses(of: parent).count == 2, "the helpers did not start")
        usleep(200_000)
        kill(parent, signal)
        _ = try finish(process, within: 10, "the parent after signal \(signal)")
        try expectNoHelpers(of: parent, within: 2)
        // A parent killed by SIGKILL cannot remove its temporary file; the others remove everything.
        if signal != SIGKILL { #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))") }
    }

    @Test("a helper leaves by itself when its input ends, before any message")
    func helperLeavesAtEndOfInput() throws {
        let (helper, input, _) = try startHelper()
        usleep(100_000)
        #expect(helper.isRunning, "the helper left before its input ended")
        try input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(2)
        while helper.isRunning && Date() < deadline { usleep(10_000) }
        #expect(!helper.isRunning, "the helper was still there 2 s after its input ended")
        if helper.isRunning { helper.terminate() }
        helper.waitUntilExit()
        #expect(helper.terminationStatus == 0)
    }

    @Test(
        "a helper refuses a recipe of another version with one frame, and leaves: parsed, or started as a parent starts it",
        arguments: [false, true])
    func helperRefusesOtherVersion(asTheParentStartsIt: Bool) throws {
        let (helper, input, output) = try startHelper(
            asTheParentStartsIt ? ["--slot", "3", "--generation", "1", "--parent", "\(getpid())"] : nil)
        // A start frame: kind 1, 12 bytes: a heartbeat of 0.1 s, then a recipe of version 99.
        var frame: [UInt8] = [1, 0, 0, 0, 12, 0, 0, 0]
        frame += [0x00, 0xE1, 0xF5, 0x05, 0, 0, 0, 0] + [99, 0, 0, 0]
        try input.fileHandleForWriting.write(contentsOf: frame)
        let watchdog = MandelProcess.Watchdog(helper, seconds: 10)
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        helper.waitUntilExit()
        if watchdog.disarm() { throw DeadlinePassed(waitingFor: "the helper to refuse and leave", seconds: 10) }
        #expect(helper.terminationStatus == 65)
        #expect(answer.first == 6, "answered with kind \(answer.first.map(String.init) ?? "nothing")")
        #expect(String(decoding: answer.dropFirst(8), as: UTF8.self).contains("version 99"))
    }

    @Test(
        "a helper's arguments in any form but the parent's go to the parser, which refuses what it must",
        arguments: [
            (["--slot", "x", "--generation", "0", "--parent", "1"], "--slot"),
            (["--slot", "0", "--generation", "0", "--parent", "99999999999"], "--parent"),
            (["--slot", "0", "--generation", "0", "--parent", "1", "more"], "more"),
            (["--generation", "0", "--slot", "0"], "--parent"),
        ])
    func helperArgumentsParsed(arguments: [String], says: String) throws {
        let result = try MandelProcess.run(["helper"] + arguments, launch: .init(shellSetup: "exec </dev/null"))
        #expect(result.status == 64, "exit \(result.status): \(result.standardError)")
        #expect(result.standardError.contains(says), "\(result.standardError)")
    }

    // MARK: - Helpers

    /// Starts `mandel helper` as this process's own (with `arguments`, or only `--parent`), with
    /// pipes for its input and output.
    private func startHelper(_ arguments: [String]? = nil) throws -> (Process, input: Pipe, output: Pipe) {
        let helper = Process()
        helper.executableURL = MandelProcess.executable
        helper.arguments = ["helper"] + (arguments ?? ["--parent", "\(getpid())"])
        let input = Pipe()
        let output = Pipe()
        helper.standardInput = input
        helper.standardOutput = output
        try helper.run()
        return (helper, input, output)
    }

    /// Waits for `process` to end, failing after `seconds`, and returns what it said.
    private func finish(_ process: Process, within seconds: Double, _ what: String) throws -> MandelProcess.Result {
        let outData = SharedValue(Data())
        let errData = SharedValue(Data())
        let readers = DispatchGroup()
        for (pipe, data) in [(process.standardOutput, outData), (process.standardError, errData)] {
            guard let handle = (pipe as? Pipe)?.fileHandleForReading else { continue }
            DispatchQueue.global().async(group: readers) { data.set(handle.readDataToEndOfFile()) }
        }
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("waited \(seconds) s for \(what)")
        }
        process.waitUntilExit()
        _ = readers.wait(timeout: .now() + 5)
        return MandelProcess.Result(
            status: process.terminationStatus, standardOutput: String(decoding: outData.get(), as: UTF8.self),
            standardError: String(decoding: errData.get(), as: UTF8.self))
    }

    /// A `process` render of `picture` with `faults` injected (`MANDEL_HELPER_FAULTS`): what it
    /// printed, its JSON report, how long it took, and whether its file is gcd's of the same picture.
    private struct FaultedRender {
        let result: MandelProcess.Result
        let report: [String: Any]
        let seconds: Double
        let sameAsGCD: Bool
        let parent: Int32
    }

    private func renderWithFaults(
        _ picture: [String], faults: String, helperDeadline: String? = nil, within seconds: Double, _ what: String
    ) throws -> FaultedRender {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try MandelProcess.run(picture + ["--strategy", "gcd", "-o", "gcd.png"], in: folder)
        var environment = ["MANDEL_HELPER_FAULTS": faults]
        environment["MANDEL_HELPER_DEADLINE"] = helperDeadline
        let started = Date()
        let process = try MandelProcess.start(
            picture + ["--strategy", "process", "-o", "process.png", "--json"], in: folder, environment: environment)
        let result = try finish(process, within: seconds, what)
        let elapsed = Date().timeIntervalSince(started)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
            "\(result.standardOutput)")
        return FaultedRender(
            result: result, report: report, seconds: elapsed,
            sameAsGCD: try sameFiles(folder + "/gcd.png", folder + "/process.png"), parent: process.processIdentifier)
    }

    private func sameFiles(_ first: String, _ second: String) throws -> Bool {
        try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second))
    }

    /// Fails unless no helper of `parent` is left within `seconds`.
    private func expectNoHelpers(of parent: Int32, within seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !helperProcesses(of: parent).isEmpty && Date() < deadline { usleep(10_000) }
        let left = helperProcesses(of: parent)
        #expect(left.isEmpty, "helpers \(left) of \(parent) still there \(seconds) s later")
        left.forEach { kill($0, SIGKILL) }
    }
}

/// The helpers `parent` started, found in /proc by their command line (`mandel helper … --parent PID`),
/// zombies included: a process that is gone has no command line.
func helperProcesses(of parent: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { pid in
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard arguments.count >= 2, arguments[1] == "helper", let at = arguments.firstIndex(of: "--parent") else {
            return false
        }
        return at + 1 < arguments.count && arguments[at + 1] == "\(parent)"
    }.filter { pid in
        // A zombie's command line is empty, so it was not listed; nor is a helper that was reaped.
        (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)).map { !$0.contains(") Z ") } ?? false
    }
}

/// SplitMix64: the test's own random numbers, the same for a seed on every run.
struct SeededRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A value several threads may set and read.
final class SharedValue<Value>: @unchecked Sendable {
    // @unchecked: every access is under the lock.
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ new: Value) { lock.withLock { value = new } }
}
