import Foundation
import ProcessTestSupport
import Testing

/// The reference orbit that stops at the period of a nucleus in the view (the ball method), every
/// pixel rebasing onto its start at its end: the counts are those of the MPFR loop and of an orbit
/// computed to the limit, and the orbit's memory is its period's, not the limit's.
@Suite("The reference orbit stops at its period")
struct OrbitPeriodTests {
    /// The minibrot of period 252 beside "1e14" (its nucleus found by Newton's method from that
    /// centre), its size about 4·10⁻²⁰, filling the view: 482 of the 4,096 pixels inside it, the
    /// others escaping after 1,311 steps and more, so that every pixel wraps round the orbit several
    /// times, and those inside about 80 times.
    static let minibrot = DefaultPrecisionTests.View(
        name: "minibrot of period 252", real: "-1.7598171308048479165828760533255272324181567417383",
        imaginary: "-0.012593310799749657319388666854314302759878869927819", zoom: "2e19", size: (64, 64),
        iterations: 20000, wrongBefore: "none measured")

    /// The render's counts and JSON report, `extra` options added.
    static func render(
        _ view: DefaultPrecisionTests.View, _ extra: [String], in folder: String
    ) throws -> (
        counts: [UInt32], report: [String: Any]
    ) {
        let result = try MandelProcess.run(
            [
                "render", "--center", "\(view.real),\(view.imaginary)", "--zoom", view.zoom, "--size",
                "\(view.size.width)x\(view.size.height)", "--iterations", "\(view.iterations)", "--counts", "c.npy",
                "--json", "-o", "p.png",
            ] + extra, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        return (try NumPyCounts(path: folder + "/c.npy").counts, report)
    }

    @Test("at a minibrot the orbit stops at its period, and every count is the MPFR loop's and the whole orbit's")
    func minibrotCountsExactly() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let view = Self.minibrot
        let wrapped = try Self.render(view, [], in: folder)
        #expect(wrapped.report["orbit_period"] as? Int == 252)
        #expect(wrapped.report["orbit_steps"] as? Int == 252)
        let whole = try Self.render(view, ["--precision", "perturbation", "--period", "off"], in: folder)
        #expect(whole.report["orbit_period"] is NSNull)
        #expect(whole.report["orbit_steps"] as? Int == view.iterations, "inside the minibrot: to the limit")
        let inside = wrapped.counts.filter { $0 == UInt32(view.iterations) }.count
        #expect(inside > 400, "\(inside) pixels inside the minibrot")
        let oracle = try await DefaultPrecisionTests.oracle(view)
        let wrong = zip(wrapped.counts, oracle).filter { $0 != $1 }.count
        #expect(wrapped.counts.count == oracle.count && wrong == 0, "\(wrong) of \(oracle.count) counts differ")
        let moved = zip(wrapped.counts, whole.counts).filter { $0 != $1 }.count
        #expect(moved == 0, "\(moved) counts differ from the orbit computed to the limit")
    }

    /// The minibrot's view with its centre moved along the real axis by `offset` (in zoom-1 units, the
    /// view being 3 wide, its farthest sample about 2.1 from the centre), the nucleus staying where it is.
    static func minibrot(offset: String, zoom: String = minibrot.zoom) -> DefaultPrecisionTests.View {
        let shifted: [String: String] = [
            "0.5": "-1.7598171308048479165578760533255272324181567417383",
            "3": "-1.7598171308048479164328760533255272324181567417383",
        ]
        return DefaultPrecisionTests.View(
            name: "minibrot of period 252, its centre \(offset) to the right", real: shifted[offset]!,
            imaginary: minibrot.imaginary, zoom: zoom, size: minibrot.size, iterations: minibrot.iterations,
            wrongBefore: minibrot.wrongBefore)
    }

    /// The ball method's bound, |Z_n| < r·|dZ_n/dc|: a nucleus anywhere in the view is found (the
    /// centre half a unit from it), and one outside it is not (three units, past the farthest sample
    /// at about 2.1). At the nucleus itself, Z_252 is so small that a wrong derivative passes too.
    @Test(
        "the orbit stops at the period of a nucleus off the view's centre, and not at one outside the view",
        arguments: [("0.5", true), ("3", false)])
    func ballHoldsTheView(offset: String, holdsNucleus: Bool) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = try Self.render(Self.minibrot(offset: offset), [], in: folder).report
        let period = report["orbit_period"] as? Int
        if holdsNucleus {
            #expect(
                period == 252 && report["orbit_steps"] as? Int == 252, "period \(period.map(String.init) ?? "none")")
        } else {
            #expect(period != 252, "the nucleus 3 units from the centre is outside the view's ball")
            #expect(period == nil || report["orbit_steps"] as? Int == period, "\(report)")
        }
    }

    /// A zoom's frames share one orbit, which looks for its nucleus in the deepest frame's ball, the
    /// smallest: from 1e8, where the view's own orbit stops at a nucleus of period 50, to the
    /// minibrot at 2e19, every frame's orbit stops at 252, as the deepest frame's own does.
    @Test("every frame of a zoom stops at the period its deepest frame's own orbit stops at")
    func framesTakeTheDeepestBall() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let view = Self.minibrot(offset: "0.5")
        let first = try Self.render(
            Self.minibrot(offset: "0.5", zoom: "1e8"), ["--precision", "perturbation"], in: folder)
        #expect(first.report["orbit_period"] as? Int == 50, "the first frame's own ball holds a nucleus of period 50")
        let deepest = try Self.render(view, [], in: folder)
        #expect(deepest.report["orbit_period"] as? Int == 252)
        let frames = try MandelProcess.run(
            [
                "render", "--center", "\(view.real),\(view.imaginary)", "--zoom", "1e8", "--zoom-to", view.zoom,
                "--size", "64x64", "--iterations", "\(view.iterations)", "--precision", "perturbation", "--frames", "3",
                "--json", "-o", "f-%d.png",
            ], in: folder)
        #expect(frames.status == 0, "\(frames.standardError)")
        let reports = try frames.standardOutput.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(reports.count == 3)
        for report in reports {
            #expect(
                report["orbit_period"] as? Int == 252,
                "frame \(report["frame"] ?? "?"): \(report["orbit_period"] ?? "?")")
        }
    }

    @Test("--iterations takes up to 4294967294, the orbit reserving that and taking only what it reaches")
    func largestLimit() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 4·10⁹ steps would be 64 GB of orbit: its address space is reserved, and the reference
        // (outside the set, |Z_1| = 2 on the circle) escapes at its second step.
        let deep = try MandelProcess.run(
            ["render", "--center", "2,0", "--zoom", "1e20", "--size", "8", "--iterations", "4000000000", "--json"]
                + ["-o", "deep.png"], in: folder)
        #expect(deep.status == 0, "\(deep.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(deep.standardOutput.utf8)) as? [String: Any])
        #expect(report["iterations"] as? Int == 4_000_000_000)
        #expect(report["orbit_steps"] as? Int == 2)
        let shallow = try MandelProcess.run(
            ["render", "--center", "3,3", "--size", "8", "--iterations", "4294967294", "-o", "shallow.png"], in: folder)
        #expect(shallow.status == 0, "\(shallow.standardError)")
        let over = try MandelProcess.run(["render", "--iterations", "4294967295", "-o", "over.png"], in: folder)
        expectRefusal(over, status: 64, mentioning: "--iterations must be from 1 to 4294967294")
    }

    @Test(
        "an orbit that finds no period in the steps memory allows stops there with one line (71), nothing written",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/sh")))
    func orbitWithoutPeriod() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Inside the main cardioid, far from its nucleus: the orbit never comes back to 0, and 10⁸
        // steps with their table (about 18 GB) do not fit in 4 GB, which the render would have
        // refused before the orbit with --period off (ReliabilityTests.deepReferenceTooLarge).
        let result = try MandelProcess.run(
            ["render", "--zoom", "1e20", "--center=-0.1,0.1", "--iterations", "100000000", "--size", "16"]
                + ["--precision", "perturbation", "-o", "p.png"], in: folder,
            launch: .init(shellSetup: "ulimit -v 4000000"), deadline: 120)
        let lines = result.standardError.split(separator: "\n").filter { !$0.hasPrefix("mandel: note:") }
        #expect(result.status == 71, "exit \(result.status): \(result.standardError)")
        #expect(lines.count == 1 && lines[0].contains("found no period in the"), "\(result.standardError)")
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
    }
}
