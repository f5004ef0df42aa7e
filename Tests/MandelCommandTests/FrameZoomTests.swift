import Foundation
import MandelServer
import ProcessTestSupport
import Testing

/// A frame of a zoom (`--frame K/N`, `--zoom`, `--zoom-to`): its zoom obeys every rule `--zoom`
/// obeys, is computed so that nothing overflows or drifts between the ends, and is named in the
/// report; the frame is the same file as `--zoom` at that zoom.
@Suite("Frames of a zoom")
struct FrameZoomTests {
    static let view = ["render", "--size", "64x48", "--color", "gray", "--iterations", "200"]

    /// Renders `arguments` with `--json`, and returns the report and the picture's bytes.
    static func frame(_ arguments: [String], in folder: String, name: String) throws -> ([String: Any], Data) {
        let result = try MandelProcess.run(view + arguments + ["--json", "-o", name], in: folder)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] ?? [:]
        return (object, try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
    }

    /// Ends whose ratio is past a `Double` (both ways), ends below its normal numbers' reciprocal, and
    /// ends deeper than a `Double`: each frame renders, as the same file as `--zoom` at its reported zoom.
    @Test(
        "A frame whose ends' ratio is past a Double renders at a zoom between them, as --zoom renders it",
        arguments: [
            (["--zoom", "0.001", "--zoom-to", "1e306", "--frame", "1/10"], "2.1544346900318"),
            (["--zoom", "1e-300", "--zoom-to", "1e300", "--frame", "3/10"], "1e-100"),
            (["--zoom", "1e308", "--zoom-to", "1e-30", "--frame", "1/10"], "2.78255940220"),
            (["--zoom", "1e-300", "--zoom-to", "1e140", "--frame", "1/12"], "1e-260"),
            (["--center", "-1.7,0", "--zoom", "1e20", "--zoom-to", "1e500", "--frame", "1/2"], "1e500"),
            (["--center", "-1.7,0", "--zoom", "1e20", "--zoom-to", "1e1086", "--frame", "5/7"], "2.1544346900"),
        ])
    func framesAcrossDoubleRange(arguments: [String], zoomPrefix: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (report, framed) = try Self.frame(arguments, in: folder, name: "frame.png")
        let zoom = report["zoom_text"] as? String ?? ""
        #expect(zoom.hasPrefix(zoomPrefix), "\(arguments): zoom \(zoom)")
        let centre = arguments.firstIndex(of: "--center").map { Array(arguments[$0...($0 + 1)]) } ?? []
        let direct = try MandelProcess.run(Self.view + centre + ["--zoom", zoom, "-o", "direct.png"], in: folder)
        #expect(direct.status == 0, "\(direct.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/direct.png")) == framed, "\(arguments)")
    }

    /// Frames between the ends are 10^(e₀ + (e₁ − e₀)·K/(N − 1)) to a few parts in 10¹³, whatever the ends.
    @Test("Frames between the ends are exact to 1e-12 at every depth, through subnormal ratios and past a Double")
    func framesAreExact() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases: [(arguments: [String], exponent: Double)] = [
            (["--zoom", "2", "--zoom-to", "2000", "--frame", "1/4"], log10(2) + 1),
            (["--zoom", "1e-290", "--zoom-to", "1e-150", "--frame", "2/3"], -150),
            (["--zoom", "1e-290", "--zoom-to", "1e-150", "--frame", "1/3"], -290 + 140.0 / 2),
            (["--zoom", "3", "--zoom-to", "1e140", "--frame", "7/9"], log10(3) + (140 - log10(3)) * 7 / 8),
            (
                ["--center", "-1.7,0", "--zoom", "1e20", "--zoom-to", "1e1086", "--frame", "5/7"],
                20 + 1066.0 * 5 / 6
            ),
        ]
        for (arguments, exponent) in cases {
            let (report, _) = try Self.frame(arguments, in: folder, name: "f.png")
            let text = report["zoom_text"] as? String ?? ""
            // Mantissa and exponent read apart, so that 1e908 is compared without a Double overflow.
            let pieces = text.lowercased().split(separator: "e")
            let mantissa = Double(pieces.first ?? "") ?? .nan
            let power = pieces.count == 2 ? Double(pieces[1]) ?? .nan : 0
            let exact = exponent - power
            #expect(abs(mantissa / pow(10, exact) - 1) < 1e-12, "\(arguments): \(text), want 1e\(exponent)")
            #expect(report["frame"] as? [Int] != nil, "\(arguments)")
        }
    }

    @Test("The report names the frame and its zoom: the line, and the JSON's frame (null without --frame)")
    func reportNamesTheFrame() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let line = try MandelProcess.run(
            Self.view + ["--zoom", "2", "--zoom-to", "2000", "--frame", "2/4", "-o", "f.png"], in: folder)
        #expect(line.status == 0)
        #expect(line.standardOutput.contains("frame 2 of 4, zoom 200.00000000000003: 64x48"), "\(line.standardOutput)")
        let (framed, _) = try Self.frame(["--zoom", "2", "--zoom-to", "2000", "--frame", "2/4"], in: folder, name: "g")
        #expect(framed["frame"] as? [Int] == [2, 4])
        let (plain, _) = try Self.frame([], in: folder, name: "h.png")
        #expect(plain["frame"] is NSNull, "\(plain["frame"] ?? "missing")")
    }

    /// `--zoom-to` is the last frame's `--zoom`: every rule of `--zoom` holds for it, and its message names it.
    @Test(
        "--zoom-to is refused as --zoom would be, naming --zoom-to and the real limit",
        arguments: [
            (
                ["--zoom", "1", "--zoom-to", "1e-320", "--frame", "1/2"],
                "--zoom-to 1e-320 gives a 64x48 picture a pixel step of inf"
            ),
            (["--zoom-to", "1e-310", "--frame", "1/2"], "--zoom-to 1e-310 gives a 64x48 picture a pixel step of inf"),
            (["--zoom-to", "0", "--frame", "1/2"], "--zoom-to must be a finite number greater than 0 (got 0)"),
            (["--zoom-to", "-4", "--frame", "1/2"], "--zoom-to must be a finite number greater than 0 (got -4)"),
            (
                ["--zoom-to", "2e1000000", "--frame", "1/2"],
                "--zoom-to 2e1000000 is deeper than mandel renders: at most 1e1000000"
            ),
            (
                ["--zoom-to", "1e400", "--frame", "1/2", "--precision", "double"],
                "--zoom-to 1e400 is past the largest Double, 1.8e308, which --precision double keeps"
            ),
            (
                ["--center", "1.7e308,0", "--zoom-to", "1e-308", "--frame", "1/2"],
                "--zoom-to 1e-308 at --center 1.7e+308,0.0 puts the picture's corners beyond the largest number"
            ),
            (
                ["--zoom", "4", "--zoom-to", "1e9", "--frame", "0/1"],
                "--frame 0/1: a zoom of one frame is its first zoom, 4"
            ),
            (["--zoom-to", "1e9", "--frame", "auto", "--frames", "1"], "--frame 0/1: a zoom of one frame"),
        ])
    func zoomToRefusals(arguments: [String], mention: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            Self.view + arguments + ["-o", "f.png"], in: folder,
            launch: MandelProcess.Launch(shellSetup: "export PARALLEL_SEQ=1"))
        expectRefusal(result, status: 64, mentioning: mention, leaving: folder)
    }

    /// A value of each view option, as a request's key (``ViewRequest/viewKeys``) names it.
    static let viewValues = [
        "center": "0.1,-0.2", "zoom": "4", "precision": "perturbation", "bla": "off", "period": "off",
        "iterations": "100", "color": "smooth", "palette": "fire", "palette-cycle": "32", "palette-offset": "0.5",
        "julia": "-0.8,0.156", "supersample": "2",
    ]

    @Test(
        "The benchmarks-game preset refuses every view option but the size, each named (one no test gave was taken and ignored)",
        arguments: [["--precision", "double"]] + viewValues.keys.sorted().map { ["--\($0)", viewValues[$0]!] })
    func presetRefusesPrecision(arguments: [String]) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--preset", "benchmarks-game", "--size", "64"] + arguments + ["-o", "b.pbm"], in: folder)
        expectRefusal(result, status: 64, mentioning: "fixes the view; remove \(arguments[0])", leaving: folder)
    }

    /// Each command checks a preset itself (serve refuses any preset before its other checks): one
    /// command that forgot would take a view option beside the preset, or a picture that is not square.
    @Test(
        "render, compare and sweep refuse a view option beside the preset, and a size that is not square",
        arguments: ["render", "compare", "sweep"])
    func presetCheckedByEveryCommand(command: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rest = command == "sweep" ? ["--workers", "1,2"] : command == "render" ? ["-o", "b.pbm"] : []
        let beside = try MandelProcess.run(
            [command, "--preset", "benchmarks-game", "--size", "64", "--julia", "-0.8,0.156"] + rest, in: folder)
        expectRefusal(beside, status: 64, mentioning: "--preset benchmarks-game fixes the view; remove --julia")
        let oblong = try MandelProcess.run(
            [command, "--preset", "benchmarks-game", "--size", "64x48"] + rest, in: folder)
        expectRefusal(
            oblong, status: 64, mentioning: "--preset benchmarks-game renders N×N; give --size N (got '64x48')")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("the preset's refusals cover every view option: one added later is added here")
    func presetRefusalsCoverTheView() {
        #expect(Set(Self.viewValues.keys) == Set(ViewRequest.viewKeys).subtracting(["size"]))
    }
}
