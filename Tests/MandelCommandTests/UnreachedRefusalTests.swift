import ArgumentParser
import Foundation
import MandelOptions
import ProcessTestSupport
import Testing

/// Refusals no other test reached: the charts' own conditions, a sweep's lists, a preset's fixed region, and
/// numbers past Double's and Int's ranges. Each is refused before anything runs or is written.
@Suite("Refusals of compare, sweep and render options, end to end")
struct UnreachedRefusalTests {
    /// Each: the arguments (every one naming a file the run would write), and the whole first line of standard
    /// error. Every one exits with 64, the documented status of a usage error.
    static let cases: [([String], String)] = [
        (
            ["compare", "--latency-chart", "l.svg", "--heartbeat", "off", "--json", "c.json"],
            "--latency-chart draws what the heartbeat measures; remove --heartbeat off"
        ),
        (
            ["compare", "--first-picture-chart", "f.svg", "--json", "c.json"],
            "--first-picture-chart draws when the preview came; add --preview with a number of pixels"
        ),
        (
            ["compare", "--tile-wait", "1,2", "--json", "c.json"],
            "--tile-wait takes one value for mandel compare; to measure several, use mandel sweep --tile-wait with "
                + "a list"
        ),
        (
            ["render", "--tile-wait", "1,2", "-o", "r.png"],
            "--tile-wait takes one value for mandel render; to measure several, use mandel sweep --tile-wait with "
                + "a list"
        ),
        (
            ["sweep", "--tile-wait", "1,2,1", "--json", "s.json", "--threads-chart", "t.svg"],
            "--tile-wait lists 1 more than once; each point of a sweep is measured once"
        ),
        // The value as it was typed, not rounded to a tenth (0.25 once read "lists 0.2").
        (
            ["sweep", "--tile-wait", "0.25,0.75,0.25", "--json", "s.json"],
            "--tile-wait lists 0.25 more than once; each point of a sweep is measured once"
        ),
        (
            ["sweep", "--tile", "8,16", "--split", "rows", "--json", "s.json"],
            "sweeping --tile needs --split tiles (got rows)"
        ),
        (
            ["render", "--preset", "benchmarks-game", "--frame", "0/4", "--zoom-to", "10", "-o", "r.png"],
            "--frame zooms a view; the benchmarks-game preset has a fixed region"
        ),
        (
            ["render", "--preset", "benchmarks-game", "--frames", "4", "--zoom-to", "10", "-o", "r%04d.png"],
            "--frames zooms a view; the benchmarks-game preset has a fixed region"
        ),
        (
            ["render", "--julia", "1e400,0", "-o", "r.png"],
            "--julia 1e400,0 is past the largest Double: each part must be within ±1.8e308"
        ),
        (
            ["render", "--julia", "0,-1e309", "-o", "r.png"],
            "--julia 0,-1e309 is past the largest Double: each part must be within ±1.8e308"
        ),
    ]

    @Test("one line naming the option and what it takes, status 64, nothing written", arguments: cases)
    func refused(arguments: [String], message: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(arguments + ["--size", "32"], in: folder)
        expectRefusal(result, status: 64, mentioning: message, leaving: folder)
        #expect(result.firstErrorLine == "Error: " + message)
        // The line is followed by the usage, nothing else.
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 3, "\(result.standardError)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: mandel \(arguments[0]) ") == true, "\(result.standardError)")
        #expect(result.standardOutput.isEmpty, "\(result.standardOutput)")
    }

    /// No option reads a bare whole number without its own range (each names one), so this text is read here.
    @Test("a whole number past Int's range: refused with Int's range, and a word that each option's is narrower")
    func wholeNumberPastInt() {
        for text in ["9223372036854775808", "-9223372036854775809", " 99999999999999999999 "] {
            let error = #expect(throws: ValueParsing.Refusal.self) { try ValueParsing.integer(text) }
            #expect(
                error?.description
                    == "out of range: whole numbers run from -9223372036854775808 to 9223372036854775807, and each "
                    + "option's own range is narrower (see --help)", "\(text)")
        }
        // Int's own ends are whole numbers like any other.
        #expect((try? ValueParsing.integer("9223372036854775807")) == Int.max)
        #expect((try? ValueParsing.integer("-9223372036854775808")) == Int.min)
    }

    @Test("--heartbeat describes itself as off or its milliseconds to one decimal")
    func heartbeatDescription() throws {
        #expect(String(describing: try BehaviourOptions.parse(["--heartbeat", "off"]).heartbeat) == "off")
        #expect(String(describing: try BehaviourOptions.parse(["--heartbeat", " off "]).heartbeat) == "off")
        #expect(String(describing: try BehaviourOptions.parse(["--heartbeat", "2.5"]).heartbeat) == "2.5")
        #expect(String(describing: try BehaviourOptions.parse([]).heartbeat) == "2")
    }
}
