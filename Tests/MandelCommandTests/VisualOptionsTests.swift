import Foundation
import ImageFiles
import Testing

@Suite("Seeing the work")
struct VisualOptionsTests {
    @Test("render writes the ownership map, the cost map and the trace beside the picture")
    func extras() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "96x64", "--split", "bands", "--workers", "2", "--ownership-map", "own.png",
             "--cost-map", "cost.png", "--trace", "trace.json", "-o", "out.png"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(contents(of: folder) == ["cost.png", "out.png", "own.png", "trace.json"])
        let ownership = try PNGImage(contentsOf: folder + "/own.png")
        #expect(ownership.channels == 3 && ownership.width >= 96 && ownership.height > 64)
        let cost = try PNGImage(contentsOf: folder + "/cost.png")
        #expect(cost.width == 96 && cost.height == 64)
        let trace = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/trace.json"))) as! [String: Any]
        #expect((trace["traceEvents"] as! [[String: Any]]).filter { $0["cat"] as? String == "tile" }.count == 2)
    }

    @Test("an unwritable map path fails before rendering and leaves nothing")
    func badPath() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["render", "--size", "32", "--trace", "missing/t.json", "-o", "out.png"], in: folder)
        #expect(result.status == 73)
        #expect(contents(of: folder).isEmpty)
    }

    @Test("--progress draws a bar on standard error and erases it; without it, a pipe gets nothing")
    func progress() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Long enough in a debug build to pass the half-second threshold.
        let slow = ["render", "--size", "400x300", "--center", "-0.1225,0.7449", "--zoom", "30", "--iterations", "1500",
                    "--tile", "16", "--workers", "2", "-o", "p.png"]
        let shown = try MandelProcess.run(slow + ["--progress"], in: folder)
        #expect(shown.status == 0)
        #expect(shown.standardError.contains("tiles"))
        #expect(shown.standardError.contains("\r["))
        #expect(shown.standardError.hasSuffix("\r\u{1B}[K"), "the bar is erased at the end")
        let hidden = try MandelProcess.run(slow, in: folder)
        #expect(hidden.status == 0)
        #expect(hidden.standardError.isEmpty)
    }

    @Test("compare writes one ownership map per strategy and can measure the progress source's cost")
    func compareExtras() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["compare", "--size", "48x32", "--runs", "1", "--warmup", "0", "--strategies", "thread",
             "--ownership-maps", ".", "--progress-overhead"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("gcd+progress"))
        #expect(contents(of: folder) == ["gcd+progress.png", "serial.png", "thread.png"])
    }
}
