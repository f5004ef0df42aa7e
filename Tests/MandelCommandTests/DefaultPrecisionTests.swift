import Deadline
import DeepShim
import Dispatch
import Foundation
import ProcessTestSupport
import Testing

/// The default render against a per-pixel MPFR loop: from a zoom of 10⁶ the default is
/// perturbation, and the pixels its Doubles cannot decide are counted again in MPFR.
///
/// Each view was measured before the change (the same sizes and limits): where `Double` was the
/// default, and where perturbation kept every Double count, how many counts differed from the loop's.
@Suite("The default precision is exact against the MPFR loop from a zoom of 10⁶")
struct DefaultPrecisionTests {
    /// A view, and the counts it got wrong before: with `Double` (the old default below about 1e14)
    /// and with perturbation whose untrusted pixels kept their Double counts.
    struct View: CustomTestStringConvertible, Sendable {
        let name: String
        let real: String
        let imaginary: String
        let zoom: String
        let size: (width: Int, height: Int)
        let iterations: Int
        let wrongBefore: String

        var testDescription: String { "\(name), zoom \(zoom), \(size.width)x\(size.height), \(iterations) iterations" }
    }

    static let views = [
        // The failure: Double was the default here, 2,473 of 4,096 counts wrong.
        View(
            name: "\"1e14\"", real: "-1.759817130804847813610825010561798238243999999999999999999800",
            imaginary: "-0.012593310799749865383746631843264858450340000000000000000000",
            zoom: "1.333333333333333333333333333333333333333e14", size: (64, 64), iterations: 4036,
            wrongBefore: "Double 2,473 of 4,096"),
        // The seahorse valley: Double 58 of 4,096 wrong, perturbation (Double counts kept) 5.
        View(
            name: "seahorse valley", real: "-0.743643887037158704752191506114774",
            imaginary: "0.131825904205311970493132056385139", zoom: "1e6", size: (64, 64), iterations: 10000,
            wrongBefore: "Double 58, perturbation 5 of 4,096"),
        // "5e227"'s centre at a shallow zoom, a grid whose offsets are not exact Doubles (3/40): Double
        // 55 of 1,920 wrong, perturbation 11.
        View(
            name: "\"5e227\"'s centre",
            real:
                "-0.7496244973787616820786262042683613868452952781236402575448157142455828647967280169875020397677913560",
            imaginary: "0.03427010874046016945172951545749474868", zoom: "1e6", size: (48, 40), iterations: 10000,
            wrongBefore: "Double 55, perturbation 11 of 1,920"),
        // A spiral at 1e10, a wide picture: Double 35 of 3,840 wrong.
        View(
            name: "spiral", real: "-0.7746806106269039", imaginary: "-0.1374168856037867", zoom: "1e10",
            size: (96, 40), iterations: 10000, wrongBefore: "Double 35 of 3,840"),
    ]

    @Test("every count of the default render is the MPFR loop's", arguments: views)
    func defaultIsExact(view: View) async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "render", "--center", "\(view.real),\(view.imaginary)", "--zoom", view.zoom, "--size",
                "\(view.size.width)x\(view.size.height)", "--iterations", "\(view.iterations)", "--counts", "c.npy",
                "--json", "-o", "p.png",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(report["precision"] as? String == "perturbation")
        #expect(report["precision_reason"] as? String == "deep-zoom")
        let counts = try NumPyCounts(path: folder + "/c.npy").counts
        let pixels = view.size.width * view.size.height
        #expect(counts.count == pixels)
        let oracle = try await Self.oracle(view)
        #expect(Set(oracle).count > 20, "not a flat picture")
        let wrong = zip(counts, oracle).filter { $0 != $1 }.count
        #expect(wrong == 0, "\(wrong) of \(pixels) counts differ from the MPFR loop's (before: \(view.wrongBefore))")
        // A few pixels needed MPFR, never most; none was left uncertain at these limits.
        let exact = try #require(report["exact_pixels"] as? Int)
        #expect(exact >= 0 && exact < pixels / 10, "\(exact) pixels counted again in MPFR")
        #expect(report["uncertain_pixels"] as? Int == 0)
    }

    /// The helpers of `process` receive the view's exact numbers with the orbit, and count their
    /// untrusted pixels at the same points: at a grid whose offsets are not exact Doubles (3/40),
    /// where a wrong point shows (8 pixels of 1,920 when the offsets' Doubles are taken as they are).
    @Test("the process strategy's helpers count the untrusted pixels as the MPFR loop does")
    func helpersCountExactly() async throws {
        let view = Self.views[2]
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "render", "--strategy", "process", "--center", "\(view.real),\(view.imaginary)", "--zoom", view.zoom,
                "--size", "\(view.size.width)x\(view.size.height)", "--iterations", "\(view.iterations)", "--counts",
                "c.npy", "--json", "-o", "p.png",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(report["exact_pixels"] is NSNull, "helpers count their own")
        let counts = try NumPyCounts(path: folder + "/c.npy").counts
        let oracle = try await Self.oracle(view)
        let wrong = zip(counts, oracle).filter { $0 != $1 }.count
        #expect(counts.count == oracle.count && wrong == 0, "\(wrong) of \(oracle.count) counts differ")
    }

    /// Every pixel of `view` in MPFR, one at a time, on every processor.
    static func oracle(_ view: View) async throws -> [UInt32] {
        try await withDeadline(seconds: 120, waitingFor: "the MPFR loop over \(view.testDescription)") {
            let (width, height) = view.size
            // The pixel step's bits, and 128 more (what the oracle of the deep-zoom tests takes).
            let bits = Int(log2(Double(view.zoom)! * Double(min(width, height)))) + 128
            let counts = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: width * height)
            defer { counts.deallocate() }
            nonisolated(unsafe) let output = counts
            DispatchQueue.concurrentPerform(iterations: width * height) { index in
                output[index] = UInt32(
                    deep_oracle_pixel(
                        view.real, view.imaginary, view.zoom, width, height, index % width, index / width, bits,
                        UInt64(view.iterations)))
            }
            return Array(counts)
        }
    }

    /// Past the MPFR budget (2^25 bits × steps a pixel) an untrusted pixel keeps its Double count,
    /// and the report says how many: at "5e227" (826 bits, counts of 1.13 million) 10 of 64.
    @Test("pixels too long to count in MPFR keep their Double counts, and the report counts them as uncertain")
    func uncertainReported() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let location = try #require(
            try String(contentsOfFile: Self.locations, encoding: .utf8).split(separator: "\n")
                .map { $0.split(separator: "\t").map(String.init) }.first { $0.first == "5e227" })
        let common = [
            "render", "--center", "\(location[1]),\(location[2])", "--zoom", location[4], "--iterations", location[5],
            "--size", "8", "-o", "p.png",
        ]
        let json = try MandelProcess.run(common + ["--json"], in: folder)
        #expect(json.status == 0, "\(json.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(report["precision_reason"] as? String == "samples-coincide")
        #expect(report["exact_pixels"] as? Int == 0)
        let uncertain = try #require(report["uncertain_pixels"] as? Int)
        #expect(uncertain >= 1 && uncertain <= 32, "\(uncertain) of 64 uncertain")
        let line = try MandelProcess.run(common, in: folder)
        #expect(line.standardOutput.contains("; \(uncertain) pixels uncertain (too long to count in MPFR)"))
    }

    static let locations = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Benchmarks/deep-locations.tsv").path
}
