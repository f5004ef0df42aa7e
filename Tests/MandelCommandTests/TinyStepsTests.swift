import Foundation
import ProcessTestSupport
import Testing

/// A reference orbit whose steps lie below 2⁻⁹⁶⁰ (Double's normal range ends at 2⁻¹⁰²²; the orbit
/// keeps such steps exactly, each as a mantissa and an exponent, beside its Doubles). The centre
/// 10⁻⁴⁰⁰ is such a reference: Z₁ = c, and every later step stays within a hair of c. Such steps
/// travel in every orbit file and every helper's recipe; no other test's orbit has one.
@Suite("A reference orbit with steps below 2^-960: files, helpers, pixels")
struct TinyStepsTests {
    static let center = ["--center", "1e-400,0", "--period", "off", "--iterations", "300"]
    /// An orbit file of 300 steps, all tiny: 301 steps of 16 bytes, at least 299 tiny ones of 32
    /// (c, c² + c, ... are all below 2^-960), and a header of at most a few hundred bytes.
    static let tinyOrbitBytes = (301 * 16 + 299 * 32)...(301 * 16 + 301 * 32 + 512)

    /// The orbit file holds every step past the first as a tiny one (32 bytes each, after the
    /// 16-byte Doubles of each step); it is taken back, and gives the same picture; `process`'s
    /// helpers, which receive the orbit in their recipe, draw the same bytes.
    @Test("an orbit of tiny steps is written, read back and sent to helpers: the same bytes every way")
    func orbitFileAndHelpers() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let view = ["render", "--zoom", "1e300", "--size", "32x24", "--tile", "8", "--workers", "2"] + Self.center
        let written = try MandelProcess.run(
            view + ["--orbit-out", "o.orbit", "--counts", "written.npy", "-o", "written.png", "--json"], in: folder,
            deadline: 20)
        #expect(written.status == 0, "\(written.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(written.standardOutput.utf8)) as? [String: Any])
        #expect(report["precision"] as? String == "perturbation" && report["orbit_steps"] as? Int == 300, "\(report)")
        #expect(report["extended_exponent"] as? Bool == true, "\(report)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: folder + "/o.orbit")[.size] as? Int)
        #expect(Self.tinyOrbitBytes ~= size, "an orbit file of \(size) bytes")

        let taken = try MandelProcess.run(
            view + ["--orbit", "o.orbit", "--counts", "taken.npy", "-o", "taken.png", "--json"], in: folder,
            deadline: 20)
        #expect(taken.status == 0, "\(taken.standardError)")
        let takenReport = try #require(
            try JSONSerialization.jsonObject(with: Data(taken.standardOutput.utf8)) as? [String: Any])
        #expect(takenReport["orbit_step_microseconds"] is NSNull, "the orbit was computed again: \(takenReport)")

        let helpers = try MandelProcess.run(
            view + ["--strategy", "process", "--counts", "helpers.npy", "-o", "helpers.png"], in: folder, deadline: 20)
        #expect(helpers.status == 0, "\(helpers.standardError)")

        let pictures = try ["written", "taken", "helpers"].map {
            try Data(contentsOf: URL(fileURLWithPath: folder + "/\($0).png"))
        }
        let counts = try ["written", "taken", "helpers"].map { try NumPyCounts(path: folder + "/\($0).npy").counts }
        #expect(pictures[1] == pictures[0] && pictures[2] == pictures[0], "the pictures differ")
        #expect(counts[1] == counts[0] && counts[2] == counts[0] && counts[0].count == 32 * 24)
        // 10^-400 + 10^-300 pixels lie deep in the main cardioid: every pixel is in the set.
        #expect(counts[0].allSatisfy { $0 == 300 }, "\(Set(counts[0]))")
    }

    /// At zoom 1 the picture is the whole set, drawn by perturbation of the tiny reference: the
    /// pixels' offsets are the whole picture's, the reference's steps 10⁻⁴⁰⁰, so every count is the
    /// Double kernel's at the centre 0 (10⁻⁴⁰⁰ is 0 in a Double), inside and outside the set.
    @Test("the whole set by perturbation of a tiny reference has the Double kernel's counts, in process and in helpers")
    func wholeSetFromATinyReference() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = ["render", "--size", "48x32", "--tile", "16", "--workers", "2", "--iterations", "300"]
        for strategy in ["gcd", "process"] {
            let result = try MandelProcess.run(
                picture + [
                    "--center", "1e-400,0", "--zoom", "1", "--precision", "perturbation", "--period", "off",
                    "--strategy", strategy, "--counts", "\(strategy).npy", "-o", "\(strategy).png",
                    "--orbit-out", "\(strategy).orbit",
                ], in: folder, deadline: 20)
            #expect(result.status == 0, "\(result.standardError)")
            // At 69 bits, as at 1065: every step past the first kept as a tiny one.
            let size = try #require(
                try FileManager.default.attributesOfItem(atPath: folder + "/\(strategy).orbit")[.size] as? Int)
            #expect(Self.tinyOrbitBytes ~= size, "\(strategy): an orbit file of \(size) bytes")
        }
        let double = try MandelProcess.run(
            picture + ["--center", "0,0", "--zoom", "1", "--counts", "double.npy", "-o", "double.png"], in: folder)
        #expect(double.status == 0, "\(double.standardError)")
        let counts = try ["gcd", "process", "double"].map { try NumPyCounts(path: folder + "/\($0).npy").counts }
        #expect(counts[0].count == 48 * 32)
        #expect(
            counts[0] == counts[2],
            "perturbation and Double differ at \(zip(counts[0], counts[2]).filter { $0 != $1 }.count) pixels")
        #expect(counts[1] == counts[2], "the helpers and Double differ")
        // Both inside and outside the set: the picture is not all of one count.
        #expect(counts[0].contains(300) && counts[0].contains { $0 < 10 }, "\(Set(counts[0]))")
    }
}
