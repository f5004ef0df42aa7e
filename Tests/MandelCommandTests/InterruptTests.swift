import Foundation
import ProcessTestSupport
import StrategyCatalog
import Testing

@Suite("Signals", .serialized)
struct InterruptTests {
    /// Inside the period-3 bulb, which the cardioid shortcut does not cover: every pixel
    /// iterates to the limit, many seconds of work even in a release build.
    static let slowRender = [
        "render", "--size", "1600x1600", "--center", "-0.1225,0.7449", "--zoom", "30",
        "--iterations", "50000", "--split", "bands",
    ]
    /// For tests of a signal's handling, not of the workers: half the processor time spent
    /// waiting for the progress line (half a second) before the signal is sent.
    static let slowRenderOnOneWorker = slowRender + ["--workers", "1"]

    @Test(
        "SIGINT mid-render exits 130 within half a second (more on a loaded machine) and leaves no file",
        arguments: StrategyCatalog.names)
    func interrupt(strategy: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (process, _) = try MandelProcess.startAndWaitForProgress(
            Self.slowRender + ["--strategy", strategy, "--progress", "-o", "big.png"], in: folder)
        try Self.interruptAndExpectCleanExit(process, folder: folder)
    }

    /// How many times longer than on a free machine a wait of the scheduler's takes now: the load
    /// average over the last minute per processor, at least 1.
    static func schedulerStretch() -> Double {
        let fields = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ") ?? []
        let load = fields.first.flatMap { Double($0) } ?? 0
        return max(1, load / Double(ProcessInfo.processInfo.activeProcessorCount))
    }

    /// Sends SIGINT to a running render and checks the promise: exit 130 within half a second on a
    /// free machine, "interrupted" on stderr, and nothing left in `folder`.
    ///
    /// What the exit waits for: the signal's thread to run, every worker to finish the segment of a row
    /// it is on (256 pixels of up to 50,000 iterations here, a few milliseconds on a free processor),
    /// and the main thread to remove the file and exit: 7 ms in all on a free machine. Each of those waits for a
    /// processor, so on a loaded one (the round-four run saw 0.51 s at a load of 6–11 on 2
    /// processors) the bound stretches by the load per processor.
    static func interruptAndExpectCleanExit(_ process: Process, folder: String) throws {
        #expect(process.isRunning, "the render finished before it could be interrupted")
        let bound = 0.5 * schedulerStretch()
        let sent = Date()
        process.interrupt()
        try MandelProcess.waitForExit(process, waitingFor: "mandel to exit after SIGINT", deadline: 30)
        let elapsed = Date().timeIntervalSince(sent)
        #expect(process.terminationStatus == 130)
        #expect(elapsed < bound, "took \(elapsed) s to exit (bound \(bound) s at this load)")
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
        let errorText = String(
            decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(errorText.contains("interrupted"))
    }

    @Test("SIGINT after the preview was put in place: 130, the preview stays, and the line says it is the only file")
    func interruptAfterPreview() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (process, _) = try MandelProcess.startAndWaitForProgress(
            Self.slowRender + ["--preview", "64", "--preview-output", "p.png", "--progress", "-o", "big.png"],
            in: folder)
        // The progress line comes after the preview's first tiles; wait for the file itself.
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: folder + "/p.png") && Date() < deadline { usleep(10_000) }
        #expect(process.isRunning, "the render finished before it could be interrupted")
        process.interrupt()
        try MandelProcess.waitForExit(
            process, waitingFor: "mandel to exit after SIGINT during its preview", deadline: 30)
        let errorText = String(
            decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130)
        #expect(contents(of: folder) == ["p.png"], "left \(contents(of: folder))")
        #expect(errorText.contains("interrupted; the work was cancelled, and only p.png was left"), "\(errorText)")
    }

    @Test("SIGINT mid-way through a banded render exits 130 and leaves no file, though bands were written")
    func interruptBanded() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (process, _) = try MandelProcess.startAndWaitForProgress(
            Self.slowRenderOnOneWorker + ["--band-height", "4", "--progress", "-o", "tall.png"], in: folder)
        #expect(contents(of: folder).count == 1, "the hidden temporary file is being written")
        try Self.interruptAndExpectCleanExit(process, folder: folder)
    }

    @Test("SIGTERM lets a render finish within the grace period and writes it")
    func terminateWithinGrace() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A few seconds of work (the bar appears at half a second), well inside a 60-second grace.
        let (process, _) = try MandelProcess.startAndWaitForProgress(
            [
                "render", "--size", "600x600", "--center", "-0.1225,0.7449", "--zoom", "30", "--iterations", "20000",
                "--tile", "16",
                "--grace", "60", "--progress", "-o", "done.png",
            ], in: folder)
        #expect(process.isRunning, "the render finished before SIGTERM")
        process.terminate()
        try MandelProcess.waitForExit(process, waitingFor: "mandel to exit after SIGTERM", deadline: 30)
        let errorText = String(
            decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(errorText)")
        #expect(contents(of: folder) == ["done.png"])
        #expect(errorText.contains("finished the render within the grace period"))
    }

    @Test("SIGTERM cancels cleanly when the grace runs out: exit 143, nothing written")
    func terminateAfterGrace() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (process, _) = try MandelProcess.startAndWaitForProgress(
            Self.slowRenderOnOneWorker + ["--grace", "0.3", "--progress", "-o", "never.png"], in: folder)
        #expect(process.isRunning)
        let sent = Date()
        process.terminate()
        try MandelProcess.waitForExit(process, waitingFor: "mandel to exit after SIGTERM", deadline: 30)
        let elapsed = Date().timeIntervalSince(sent)
        #expect(process.terminationStatus == 143)
        #expect(elapsed >= 0.3 && elapsed < 0.3 + 0.5, "took \(elapsed) s")
        #expect(contents(of: folder).isEmpty)
        let errorText = String(
            decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(errorText.contains("grace period ran out"))
    }

    @Test(
        "every other signal that ends a process stops the work too: 128 + the signal, one line naming it, nothing left",
        arguments: [
            (SIGHUP, "hung up"), (SIGQUIT, "quit"), (SIGALRM, "SIGALRM"), (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"),
        ])
    func otherSignals(signal: Int32, words: String) throws {
        // Banded and whole pictures take different paths to their files; both must clean up.
        for extra in [["--band-height", "4"], ["--ownership-map", "m.png"]] {
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let (process, _) = try MandelProcess.startAndWaitForProgress(
                Self.slowRenderOnOneWorker + extra + ["--progress", "-o", "big.png", "--trace", "t.json"], in: folder)
            #expect(process.isRunning)
            kill(process.processIdentifier, signal)
            try MandelProcess.waitForExit(process, waitingFor: "mandel to exit after signal \(signal)", deadline: 30)
            let errorText = String(
                decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 128 + signal, "\(extra): \(errorText)")
            #expect(errorText.contains(words) && !errorText.contains("Backtrac"), "\(errorText)")
            #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
        }
    }

    @Test("SIGHUP during compare --json: 129, and the results file is not left half-made")
    func hangUpDuringCompare() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let process = try MandelProcess.start(
            [
                "compare", "--size", "600x400", "--center", "-0.1225,0.7449", "--zoom", "30", "--iterations", "5000",
                "--runs", "50", "--json", "r.json", "--csv", "r.csv",
            ], in: folder)
        // The first line (the workload) is printed once the outputs are open and the signals watched.
        _ = try MandelProcess.readUntil(
            (process.standardOutput as! Pipe).fileHandleForReading, of: process, waitingFor: "compare's first line"
        ) { $0.contains(UInt8(ascii: "\n")) }
        #expect(process.isRunning)
        kill(process.processIdentifier, SIGHUP)
        try MandelProcess.waitForExit(process, waitingFor: "mandel to exit after SIGHUP", deadline: 30)
        #expect(process.terminationStatus == 129)
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
    }
}
