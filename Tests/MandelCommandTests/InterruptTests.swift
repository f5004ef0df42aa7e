import Foundation
import Testing

@Suite("Ctrl-C", .serialized)
struct InterruptTests {
    @Test("SIGINT mid-render exits 130 within half a second and leaves no file", arguments: ["serial", "thread", "operation", "gcd", "apply", "tasks", "pthread"])
    func interrupt(strategy: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Deep in the set at a high limit: many seconds of work in a debug build.
        let process = try MandelProcess.start(
            ["render", "--strategy", strategy, "--size", "1600x1600", "--center", "-0.2,0", "--zoom", "3",
             "--iterations", "50000", "--split", "bands", "-o", "big.png"],
            in: folder)
        Thread.sleep(forTimeInterval: 0.4)
        #expect(process.isRunning, "the render finished before it could be interrupted")
        let sent = Date()
        process.interrupt()
        process.waitUntilExit()
        let elapsed = Date().timeIntervalSince(sent)
        #expect(process.terminationStatus == 130)
        #expect(elapsed < 0.5, "took \(elapsed) s to exit")
        #expect(contents(of: folder).isEmpty)
        let errorText = String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(errorText.contains("interrupted"))
    }
}
