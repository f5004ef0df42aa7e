import Deadline
import Foundation
import ProcessTestSupport
import Testing

/// `--strategy process` starts its helpers from the running program, not from its file's name: a
/// binary deleted or replaced (a rebuild) during a render still starts the helper that replaces a
/// dead one, and the second pass's helpers of histogram colouring.
@Suite("Replaced binary", .serialized)
struct ReplacedBinaryTests {
    /// What becomes of the file the render was started from.
    enum Replacement: String, CaseIterable, Sendable {
        case deleted
        /// A shell script that exits 1 in its place.
        case script
        /// The first 4 KiB of the binary in its place: not a program the kernel can start.
        case truncated
    }

    /// Histogram colouring (two passes) for a few seconds, with many tiles (25,000 iterations: at 20,000,
    /// once narrow tiles were packed and the memory check cheaper, the first pass could end on a loaded
    /// machine before its helper was killed).
    static let render = [
        "render", "--size", "600x600", "--center", "-0.1225,0.7449", "--zoom", "30", "--iterations", "25000",
        "--tile", "24x24", "--workers", "2", "--color", "histogram",
    ]

    /// The same picture by `serial` (made by each test: a static would hold its bytes to the end, which
    /// LeakSanitizer reports).
    static func serialPicture() throws -> Data {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(render + ["--strategy", "serial", "-o", "serial.png"], in: folder)
        guard result.status == 0 else { throw Failed(standardError: result.standardError) }
        return try Data(contentsOf: URL(fileURLWithPath: folder + "/serial.png"))
    }

    struct Failed: Error { let standardError: String }

    @Test(
        "the binary deleted or replaced mid-render, a helper killed: the render finishes with serial's picture",
        arguments: Replacement.allCases)
    func replacedMidRender(_ replacement: Replacement) throws {
        let expected = try Self.serialPicture()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = folder + "/mandel"
        // Copied by cp, not in this process: a descriptor open for writing here is inherited by whatever the
        // suite's other tests start meanwhile, and the copy's exec then fails with ETXTBSY (seen in CI: 126).
        let copier = Process()
        copier.executableURL = URL(fileURLWithPath: "/bin/cp")
        copier.arguments = [MandelProcess.executable.path, copy]
        try copier.run()
        copier.waitUntilExit()
        try #require(copier.terminationStatus == 0)
        let render = Process()
        render.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        render.arguments =
            ["--default-signal", copy] + Self.render + ["--strategy", "process", "-o", "p.png", "--json"]
        render.currentDirectoryURL = URL(fileURLWithPath: folder)
        let (output, errors) = (Pipe(), Pipe())
        render.standardOutput = output
        render.standardError = errors
        try render.run()
        let watchdog = MandelProcess.Watchdog(render, seconds: 120)
        let said = SharedValue(Data())
        DispatchQueue.global().async { said.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        // The first pass's helpers, started from the file while it was still there.
        let started = Date().addingTimeInterval(20)
        var helpers: [Int32] = []
        while helpers.isEmpty && render.isRunning && Date() < started {
            usleep(10_000)
            helpers = helperProcesses(of: render.processIdentifier)
        }
        try FileManager.default.removeItem(atPath: copy)
        switch replacement {
        case .deleted: break
        case .script: try "#!/bin/sh\nexit 1\n".write(toFile: copy, atomically: false, encoding: .utf8)
        case .truncated:
            // Its first 4 KiB only: reading the whole debug binary (75 MB) before the kill below let the
            // first pass end first on a loaded machine, and the helper to kill was gone.
            let source = try FileHandle(forReadingFrom: MandelProcess.executable)
            defer { try? source.close() }
            try source.readData(ofLength: 4096).write(to: URL(fileURLWithPath: copy))
        }
        chmod(copy, 0o755)
        // The pool replaces a helper that dies: from the running program, or from the file at its name.
        let killed = helpers.first.map { kill($0, SIGKILL) == 0 } ?? false
        let report = output.fileHandleForReading.readDataToEndOfFile()
        render.waitUntilExit()
        if watchdog.disarm() {
            throw DeadlinePassed(waitingFor: "the render from a \(replacement) binary", seconds: 120)
        }
        #expect(render.terminationStatus == 0, "\(String(decoding: said.get(), as: UTF8.self))")
        #expect(killed, "no helper to kill: the render ended before its first pass's helpers were seen")
        let json = try JSONSerialization.jsonObject(with: report) as? [String: Any]
        #expect((json?["helper_crashes"] as? Int ?? 0) >= 1, "\(json?["helper_crashes"] ?? "no report")")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/p.png")) == expected)
    }
}
