import Foundation
import ProcessTestSupport
import Testing

/// The process sampler counts the threads there are, its own and the instruments' left out: run in
/// `sampler-probe`, a process whose every thread the test decides. (In `mandel` the threads vary by one
/// from run to run, so its `peak_threads` cannot be bounded that finely.)
@Suite("the process sampler")
struct ProcessSamplerTests {
    @Test(
        "each 10 ms window holds the threads there were, the sampler's and the instruments' left out",
        arguments: [(0, 0, 0), (3, 0, 0), (0, 4, 0), (2, 3, 2)])
    func countsTheThreadsThereAre(before: Int, after: Int, instruments: Int) throws {
        let lines = try Self.probe(before, after, instruments)
        let windows = try #require(lines.first).split(separator: " ").compactMap { Int($0) }
        let (first, last) = (1 + before, 1 + before + after)
        // 120 ms of sampling; a loaded machine may sleep the probe longer, never shorter.
        #expect(windows.count >= 11 && windows.count <= 1000, "\(windows.count) windows")
        #expect(windows.first == first && windows.last == last, "\(windows)")
        #expect(windows.allSatisfy { $0 == first || $0 == last }, "\(windows)")
        #expect(zip(windows, windows.dropFirst()).allSatisfy { $0 <= $1 }, "\(windows)")
        #expect(lines.dropFirst().first == String(last), "peak \(lines.dropFirst().first ?? "none")")
    }

    /// Runs `sampler-probe` (beside `mandel` in the build folder) and returns its lines.
    static func probe(_ counts: Int...) throws -> [String] {
        let process = Process()
        process.executableURL = MandelProcess.executable.deletingLastPathComponent()
            .appendingPathComponent("sampler-probe")
        process.arguments = counts.map(String.init)
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        try MandelProcess.waitForExit(process, waitingFor: "sampler-probe \(counts)", deadline: 30)
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
