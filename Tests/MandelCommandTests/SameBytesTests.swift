import Foundation
import ImageFiles
import ProcessTestSupport
import Testing

/// A picture's bytes depend only on what determines its pixels and their encoding: the
/// premise of rendering a picture on many machines and joining it (docs/parts.md).
@Suite("One picture, the same bytes wherever it was made")
struct SameBytesTests {
    /// Ways to make the same picture that must not change a byte of it: strategies, worker
    /// counts, splits, tile sizes, band heights, kernels, and one processor only.
    static let runs: [(arguments: [String], launch: MandelProcess.Launch)] = [
        (["--strategy", "gcd", "--workers", "2"], .plain),
        (["--strategy", "thread", "--workers", "3", "--split", "rows"], .plain),
        (["--strategy", "pthread", "--workers", "5", "--split", "bands"], .plain),
        (["--strategy", "tasks", "--workers", "4", "--tile", "16x16"], .plain),
        (["--strategy", "operation", "--workers", "2", "--band-height", "7"], .plain),
        (["--strategy", "apply", "--workers", "7", "--tile", "40x8", "--band-height", "64"], .plain),
        (["--strategy", "serial", "--kernel", "scalar"], .plain),
        // The shell pins itself to processor 0 and execs mandel, which inherits the affinity.
        (["--strategy", "gcd"], MandelProcess.Launch(shellSetup: "taskset -pc 0 $$ > /dev/null")),
    ]

    @Test(
        "every strategy, worker count, split, tile size, band height, kernel, and one processor, write the same file",
        arguments: ["bw", "gray", "smooth", "histogram"])
    func sameFile(color: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = ["render", "--size", "200x150", "--color", color, "--iterations", "300"]
        let reference = try MandelProcess.run(
            picture + ["--strategy", "serial", "--workers", "1", "-o", "reference.png"], in: folder)
        #expect(reference.status == 0, "\(reference.standardError)")
        let expected = try Data(contentsOf: URL(fileURLWithPath: folder + "/reference.png"))
        for (index, run) in Self.runs.enumerated() {
            let result = try MandelProcess.run(
                picture + run.arguments + ["-o", "\(index).png"], in: folder, launch: run.launch)
            #expect(result.status == 0, "\(run.arguments): \(result.standardError)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/\(index).png"))
            #expect(bytes == expected, "\(color) \(run.arguments) wrote other bytes than the serial render")
        }
        let texts = try PNGImage(contentsOf: folder + "/reference.png").texts
        for fact in ["mandel.strategy", "mandel.workers", "mandel.split", "mandel.kernel", "mandel.tile"] {
            #expect(texts[fact] == nil, "the picture states \(fact), a fact of the run")
        }
        #expect(texts["mandel.color"] == color)
        #expect((texts["mandel.palette"] != nil) == (color == "smooth" || color == "histogram"))
    }

    @Test("the palette is part of what the picture states: two palettes, two descriptions")
    func paletteStated() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, extra) in [("a", ["--palette", "fire"]), ("b", ["--palette", "fire", "--palette-cycle", "32"])] {
            let result = try MandelProcess.run(["render", "--size", "40x30", "-o", name + ".png"] + extra, in: folder)
            #expect(result.status == 0, "\(result.standardError)")
        }
        let first = try PNGImage(contentsOf: folder + "/a.png").texts["mandel.palette"]
        let second = try PNGImage(contentsOf: folder + "/b.png").texts["mandel.palette"]
        #expect(first?.hasSuffix("; cycle 64.0; offset 0.0") == true, "\(first ?? "none")")
        #expect(second?.hasSuffix("; cycle 32.0; offset 0.0") == true, "\(second ?? "none")")
        #expect(first?.hasPrefix("0.0:#000000 0.125:#800000 ") == true, "\(first ?? "none")")
    }
}
