import Foundation
import ProcessTestSupport
import Testing

/// Deep renders (perturbation, the reference orbit in MPFR) as a user whom limits bind: each
/// shortfall is one line, a documented exit code and no file left, never a crash.
@Suite(
    "mandel render at depth: limits",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
struct DeepLimitsTests {
    /// A deep view whose orbit never escapes and whose every step is 0, below 2⁻⁹⁶⁰, so that each is
    /// kept exactly as well (32 bytes a step beside the orbit's 16): the most memory an orbit takes.
    static func centreAtZero(iterations: Int) -> [String] {
        ["render", "--center", "0,0", "--zoom", "1e400", "--iterations", "\(iterations)", "--size", "1"]
    }

    @Test(
        "memory the reference orbit cannot have is an answer: 71, one line, nothing written",
        arguments: [
            // The orbit's 1.5 GiB under 800 MB: the allocation trapped ("failed to allocate", 134);
            // the memory check before the render now refuses it first.
            (100_000_000, "on", "ulimit -v 800000"),
            // Without a table the check passes (48 B a step: 916.8 MiB), and the exact steps' 1 GiB
            // does not fit beside the orbit: exit 70, "internal error: RenderCancelled".
            (20_000_000, "off", "ulimit -v 1300000"),
        ])
    func orbitMemory(iterations: Int, table: String, limit: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            // --period off: at 0 the orbit's period is 1, and it would stop there.
            Self.centreAtZero(iterations: iterations) + ["--bla", table, "--period", "off", "-o", "deep.png"],
            in: folder,
            launch: .init(shellSetup: limit, asNobody: true), deadline: 60)
        Self.expectOneLine(result, status: 71, mentioning: "memory", leaving: folder)
    }

    /// Checks a deep run's failure: the exit code, one line on standard error besides the note that
    /// perturbation was chosen, no crash report, and nothing left in `folder`.
    static func expectOneLine(
        _ result: MandelProcess.Result, status: Int32, mentioning mention: String, leaving folder: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let lines = result.standardError.split(separator: "\n").filter { !$0.hasPrefix("mandel: note:") }
        #expect(
            result.status == status, "exit \(result.status): \(result.standardError)", sourceLocation: sourceLocation)
        #expect(
            lines.count == 1 && lines[0].contains(mention), "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))", sourceLocation: sourceLocation)
    }

    @Test("ulimit -t N sets soft = hard, whose word is SIGKILL: mandel stops itself first, 152, nothing left")
    func processorTimeWithoutWarning() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The orbit alone takes about 1.2 s of processor time. On the old code: killed (137), its
        // temporary file left.
        let result = try MandelProcess.run(
            Self.centreAtZero(iterations: 5_000_000) + ["--period", "off", "-o", "deep.png"], in: folder,
            launch: .init(shellSetup: "ulimit -t 1", asNobody: true), deadline: 60)
        Self.expectOneLine(result, status: 128 + SIGXCPU, mentioning: "CPU time limit", leaving: folder)
    }

    @Test("a zoom past 1e1000000, whose MPFR numbers nothing bounds, is refused: 64, one line naming the bound")
    func deepestZoom() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 1e300000000 aborted in GMP under ulimit -v 1000000 ("Cannot allocate memory", 134);
        // 1e1000000000 (past MPFR's exponents) was "not a finite number".
        for zoom in ["1e300000000", "1e1000000000", "1.5e1000000"] {
            let result = try MandelProcess.run(
                ["render", "--center", "0,0", "--zoom", zoom, "--iterations", "10", "--size", "4", "-o", "z.png"],
                in: folder, launch: .init(shellSetup: "ulimit -v 1000000", asNobody: true), deadline: 60)
            expectRefusal(result, status: 64, mentioning: "at most 1e1000000", leaving: folder)
        }
        let deepest = try MandelProcess.run(
            ["render", "--center", "0,0", "--zoom", "1e1000000", "--iterations", "10", "--size", "4", "-o", "z.png"],
            in: folder, deadline: 60)
        #expect(deepest.status == 0, "\(deepest.standardError)")
    }

    @Test("a cancel during an orbit of slow steps (3.3 million bits at 1e1000000) stops it within a step")
    func cancelBetweenSlowSteps() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Each step takes about 18 ms here, and the loop looked at the cancel every 4,096: the
        // planned cancel's render ran 60.8 s more, past this deadline (the whole orbit, 30 minutes).
        let result = try MandelProcess.run(
            [
                "render", "--center", "0.25,0", "--zoom", "1e1000000", "--iterations", "100000", "--size", "8",
                "--cancel-after", "200", "-o", "slow.png",
            ], in: folder, deadline: 30)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("cancelled") && result.standardOutput.contains("no picture written"))
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
    }

    @Test("the process strategy's pipes count against ulimit -n before anything starts: 71, one line, nothing left")
    func helperPipesCounted() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 8 helpers starting at once hold 32 pipe ends here. On the old code the check passed and every helper
        // failed to start ("helper processes kept failing: helper 0: pipe2: Too many open files", 69).
        let result = try MandelProcess.run(
            [
                "render", "--center", "-1.5,0", "--zoom", "1e500", "--iterations", "1000", "--size", "256",
                "--strategy", "process", "--workers", "8", "-o", "pipes.png",
            ], in: folder, launch: .init(shellSetup: "ulimit -n 30", asNobody: true), deadline: 60)
        expectRefusal(
            result, status: 71, mentioning: "needs 49 (the pipes of 8 helper processes among them)", leaving: folder)
    }
}
