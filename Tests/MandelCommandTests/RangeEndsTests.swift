import ArgumentParser
import MandelOptions
import RenderModel
import Testing

@testable import mandel

/// Both ends of every documented range: each end is accepted, and the first value past it is
/// refused with a line naming the option. A range written `1..<1000` where the help says
/// `1…1000` refuses a value a user was promised; only a test at the end itself can see that.
@Suite("Range ends")
struct RangeEndsTests {
    /// One documented range: the command, what else it needs, the option, its two ends as
    /// typed, and the first value past each end (nil where nothing lies past it).
    struct Range: CustomTestStringConvertible, Sendable {
        let command: String
        let context: [String]
        let option: String
        let lowest: String
        let highest: String
        let belowLowest: String?
        let aboveHighest: String?
        var testDescription: String { "\(command) \(option) \(lowest)…\(highest)" }
    }

    /// Every range in the options' help and the README's options tables.
    static let ranges: [Range] = [
        Range(
            command: "render", context: ["--tile", "1"], option: "--size", lowest: "1", highest: "2147483647x1",
            belowLowest: "0x1", aboveHighest: "2147483648x1"),
        Range(
            command: "render", context: [], option: "--tile", lowest: "1", highest: "64x48", belowLowest: "0x8",
            aboveHighest: "65x48"),
        Range(
            command: "render", context: [], option: "--iterations", lowest: "1", highest: "4294967294",
            belowLowest: "0", aboveHighest: "4294967295"),
        Range(
            command: "render", context: [], option: "--supersample", lowest: "1", highest: "8", belowLowest: "0",
            aboveHighest: "9"),
        Range(
            command: "render", context: [], option: "--palette-cycle", lowest: "0.001", highest: "1000000000",
            belowLowest: "0.000999", aboveHighest: "1000000001"),
        Range(
            command: "render", context: [], option: "--palette-offset", lowest: "0", highest: "1",
            belowLowest: "-0.001", aboveHighest: "1.001"),
        Range(
            command: "render", context: [], option: "--workers", lowest: "1", highest: "1024", belowLowest: "0",
            aboveHighest: "1025"),
        Range(
            command: "render", context: [], option: "--preview", lowest: "2", highest: "65536", belowLowest: "1",
            aboveHighest: "65537"),
        Range(
            command: "render", context: [], option: "--grace", lowest: "0", highest: "3600", belowLowest: "-0.001",
            aboveHighest: "3600.001"),
        Range(
            command: "render", context: ["--color", "histogram"], option: "--merge-batch", lowest: "1",
            highest: "1048576", belowLowest: "0", aboveHighest: "1048577"),
        Range(
            command: "render", context: [], option: "--heartbeat", lowest: "0.1", highest: "1000",
            belowLowest: "0.099", aboveHighest: "1000.001"),
        Range(
            command: "render", context: [], option: "--tile-wait", lowest: "0", highest: "1000", belowLowest: "-0.001",
            aboveHighest: "1000.001"),
        Range(
            command: "render", context: [], option: "--cancel-after", lowest: "0", highest: "3600000",
            belowLowest: "-0.001", aboveHighest: "3600000.001"),
        Range(
            command: "render", context: [], option: "--band-height", lowest: "1", highest: "48", belowLowest: "0",
            aboveHighest: nil),
        Range(
            command: "compare", context: [], option: "--runs", lowest: "1", highest: "1000", belowLowest: "0",
            aboveHighest: "1001"),
        Range(
            command: "compare", context: [], option: "--warmup", lowest: "0", highest: "100", belowLowest: "-1",
            aboveHighest: "101"),
        Range(
            command: "compare", context: [], option: "--grace", lowest: "0", highest: "3600", belowLowest: "-0.001",
            aboveHighest: "3600.001"),
        Range(
            command: "sweep", context: ["--workers", "1,2"], option: "--runs", lowest: "1", highest: "1000",
            belowLowest: "0", aboveHighest: "1001"),
        Range(
            command: "sweep", context: ["--workers", "1,2"], option: "--warmup", lowest: "0", highest: "100",
            belowLowest: "-1", aboveHighest: "101"),
        Range(
            command: "sweep", context: ["--color", "histogram"], option: "--merge-batch", lowest: "1,2",
            highest: "1,1048576", belowLowest: "0,1", aboveHighest: "1,1048577"),
    ]

    /// What `command` makes of `arguments`: nil if accepted, else the first line and exit code.
    static func outcome(_ command: String, _ arguments: [String]) -> (message: String, status: Int32)? {
        let arguments = ["--size", "64x48"] + arguments
        switch command {
        case "render": return refusal(RenderCommand.self, arguments)
        case "compare": return refusal(CompareCommand.self, arguments)
        default: return refusal(SweepCommand.self, arguments)
        }
    }

    @Test("each end of a documented range is accepted, and the first value past it refused", arguments: ranges)
    func ends(range: Range) {
        for end in [range.lowest, range.highest] {
            let outcome = Self.outcome(range.command, range.context + [range.option, end])
            #expect(outcome == nil, "\(range.option) \(end) refused: \(outcome?.message ?? "")")
        }
        for past in [range.belowLowest, range.aboveHighest].compactMap(\.self) {
            let outcome = Self.outcome(range.command, range.context + [range.option, past])
            #expect(outcome?.status == 64, "\(range.option) \(past) was accepted")
            #expect(
                outcome?.message.contains(range.option) == true || outcome?.message.contains("sides") == true,
                "\(range.option) \(past): \(outcome?.message ?? "accepted")")
        }
    }
}
