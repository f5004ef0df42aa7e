import Foundation
import ProcessTestSupport
import Testing

/// The report line of a `process` render whose helpers died says how many were replaced and how
/// many tiles were sent again, in the singular and the plural, between the write's time and the
/// main queue's figures. (The JSON report's `helper_crashes` and `work_retried` are read by
/// ProcessStrategyTests; this is the line a user reads.)
@Suite("The report line of a render whose helpers died")
struct HelperReplacedLineTests {
    static let view = [
        "render", "--size", "320x240", "--iterations", "500", "--tile", "32x32", "--workers", "1", "--strategy",
        "process",
    ]

    func line(faults: String) throws -> String {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            Self.view + ["-o", "p.png"], in: folder, environment: ["MANDEL_HELPER_FAULTS": faults], deadline: 20)
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput
    }

    /// One worker: the helper that traps at the last tile (79) holds only that one.
    @Test("one helper replaced, one tile sent again: in the singular, before the main queue's figures")
    func one() throws {
        let line = try line(faults: "trap:0.0@79")
        #expect(line.contains(" | 1 helper replaced, 1 tile sent again | main queue "), "\(line)")
    }

    /// The slot's first helper traps at its fourth tile, its second at its third: two replaced,
    /// and each had one or two tiles in hand (the one it was rendering, perhaps the next).
    @Test("two helpers replaced, and the tiles they held sent again: in the plural")
    func two() throws {
        let line = try line(faults: "trap:0.0@3,trap:0.1@2")
        let pattern = /\| 2 helpers replaced, (\d+) tiles sent again \| main queue/
        let match = try #require(line.firstMatch(of: pattern), "\(line)")
        #expect((2...4).contains(Int(match.1) ?? 0), "\(line)")
    }

    @Test("no helper died: the line says nothing of helpers")
    func none() throws {
        let line = try line(faults: "")
        #expect(line.hasPrefix("process: 320x240") && !line.contains("replaced") && !line.contains("sent again"))
    }
}
