import Deadline
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
        // 120 ms of sampling, from when the sampler's thread first ran: on a loaded machine that may be
        // late, even after the second threads started (then every window holds the last count).
        #expect(windows.count >= 1 && windows.count <= 1000, "\(windows.count) windows")
        #expect(windows.first == first || windows.first == last, "\(windows)")
        #expect(windows.last == last, "\(windows)")
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
        // Armed before the read, which would otherwise wait as long as a hung child.
        let watchdog = MandelProcess.Watchdog(process, seconds: 30)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if watchdog.disarm() { throw DeadlinePassed(waitingFor: "sampler-probe \(counts)", seconds: 30) }
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// Apart from the other suites so that the AddressSanitizer leg skips it (its name holds
/// `BoundedMemoryTests`): under ASan the probe's pages come with their shadow, 54 MiB for 48.
@Suite("the process sampler: resident memory")
struct SamplerBoundedMemoryTests {
    /// Resident memory is read from `/proc/self/statm` in pages: 48 MiB written to, page by page,
    /// show in the windows after as 48 MiB more (the probe's own code and stacks are a few MiB).
    @Test("the windows after 48 MiB are written to hold 48 MiB more resident memory, and the peak is the last")
    func residentMemory() throws {
        let lines = try ProcessSamplerTests.probe(0, 0, 0, 48)
        let resident = try #require(lines.dropFirst(2).first).split(separator: " ").compactMap { Int($0) }
        let (first, last) = (try #require(resident.first), try #require(resident.last))
        #expect(first > 1 << 20 && first < 64 << 20, "\(first) bytes before")
        let grown = Double(last - first) / Double(1 << 20)
        #expect(grown >= 47.5 && grown <= 50, "\(grown) MiB more after 48 MiB written")
        #expect(zip(resident, resident.dropFirst()).allSatisfy { $0 <= $1 + (1 << 20) }, "\(resident)")
        #expect(lines.dropFirst(3).first == String(resident.max() ?? 0))
    }
}
