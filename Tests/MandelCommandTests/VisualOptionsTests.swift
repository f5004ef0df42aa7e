import Deadline
import Foundation
import ImageFiles
import ProcessTestSupport
import Testing

@Suite("Seeing the work")
struct VisualOptionsTests {
    @Test("render writes the ownership map, the cost map and the trace beside the picture")
    func extras() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "render", "--size", "96x64", "--split", "bands", "--workers", "2", "--ownership-map", "own.png",
                "--cost-map", "cost.png", "--trace", "trace.json", "-o", "out.png",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(contents(of: folder) == ["cost.png", "out.png", "own.png", "trace.json"])
        let ownership = try PNGImage(contentsOf: folder + "/own.png")
        #expect(ownership.channels == 3 && ownership.width >= 96 && ownership.height > 64)
        let cost = try PNGImage(contentsOf: folder + "/cost.png")
        #expect(cost.width == 96 && cost.height == 64)
        let trace =
            try jsonObject(atPath: folder + "/trace.json")
        #expect((trace["traceEvents"] as! [[String: Any]]).filter { $0["cat"] as? String == "tile" }.count == 2)
    }

    @Test("an unwritable map path fails before rendering and leaves nothing")
    func badPath() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "32", "--trace", "missing/t.json", "-o", "out.png"], in: folder)
        #expect(result.status == 73)
        #expect(contents(of: folder).isEmpty)
    }

    @Test(
        "on a terminal a bar is drawn and erased, by default and with --progress, and none with --no-progress; a pipe gets nothing"
    )
    func progress() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Inside the period-3 bulb, every pixel to the limit: past the half-second threshold, about 1.5 s
        // on a free machine (12,000 iterations had become 0.40 s, and the bar was drawn once or not at all).
        let bulb = [
            "render", "--size", "800x600", "--center", "-0.1225,0.7449", "--zoom", "30", "--tile", "16", "-o", "p.png",
        ]
        let slow = bulb + ["--iterations", "45000", "--workers", "2"]
        /// What mandel wrote to a terminal (script(1) gives it one for standard error), run with `option`.
        func onTerminal(_ option: [String]) throws -> String {
            let terminal = Process()
            terminal.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            let command = ([MandelProcess.executable.path] + slow + option).map { "'\($0)'" }.joined(separator: " ")
            terminal.arguments = ["-qec", command, "/dev/null"]
            terminal.currentDirectoryURL = URL(fileURLWithPath: folder)
            let output = Pipe()
            terminal.standardOutput = output
            try terminal.run()
            let watchdog = MandelProcess.Watchdog(terminal, seconds: MandelProcess.deadlineSeconds)
            let shown = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            terminal.waitUntilExit()
            if watchdog.disarm() {
                throw DeadlinePassed(
                    waitingFor: "mandel \(option) on a terminal to exit", seconds: MandelProcess.deadlineSeconds)
            }
            #expect(terminal.terminationStatus == 0, "\(option): \(shown)")
            return shown
        }
        for option in [["--progress"], []] {
            let shown = try onTerminal(option)
            #expect(
                shown.contains("tiles") && shown.contains("\r\u{1B}[K["), "\(option): a bar drawn in place: \(shown)")
            #expect(shown.contains("\r\u{1B}[K") && shown.contains("left"), "\(option): an estimate of the time left")
        }
        let quiet = try onTerminal(["--no-progress"])
        #expect(!quiet.contains("\u{1B}[K") && !quiet.contains(" left"), "--no-progress drew: \(quiet)")
        #expect(quiet.hasPrefix("gcd: 800x600"), "the report line alone: \(quiet)")
        // As long on one worker, with half the work.
        let hidden = try MandelProcess.run(bulb + ["--iterations", "22500", "--workers", "1"], in: folder)
        #expect(hidden.status == 0)
        #expect(hidden.standardError.isEmpty)
    }

    @Test("compare writes one ownership map per strategy and can measure the progress source's cost")
    func compareExtras() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "compare", "--size", "48x32", "--runs", "1", "--warmup", "0", "--strategies", "thread",
                "--ownership-maps", ".", "--progress-overhead",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("gcd+progress"))
        #expect(contents(of: folder) == ["gcd+progress.png", "serial.png", "thread.png"])
    }
}
