import Foundation
import ProcessTestSupport
import Testing

/// The parsing table runs in process (ParsingTests); these run the real binary once per exit code and kind of path.
@Suite("Bad input, end to end")
struct BadInputTests {
    /// Each: the arguments after `render`, the exit code, and words the first stderr line must contain.
    static let cases: [([String], Int32, String)] = [
        (["--size", "0x10"], 64, "sides must be from 1 to 2147483647"),
        (["--zoom", "0"], 64, "--zoom must be a finite number greater than 0"),
        (["--palette-cycle", "1e-307"], 64, "--palette-cycle must be"),
        (["-o", "no-such-folder/x.png"], 73, "does not exist"),
        (["-o", "."], 73, "it is a folder"),
        (["-o", "/proc/x.png"], 73, "does not accept new files"),
        (["--trace", "/proc/t.json"], 73, "does not accept new files"),
        (["-o", "/dev/full"], 74, "no space left"),
        (["--band-height", "8", "-o", "/dev/full"], 74, "no space left"),
        // Every output a render writes, on a full disk: the run fails, and no other output is published.
        (["--format", "pbm", "--color", "bw", "-o", "/dev/full"], 74, "no space left"),
        (["--counts", "/dev/full"], 74, "no space left"),
        (["--trace", "/dev/full"], 74, "no space left"),
        (["--cost-map", "/dev/full"], 74, "no space left"),
        (["--ownership-map", "/dev/full"], 74, "no space left"),
        (["--preview", "4", "--preview-output", "/dev/full"], 74, "no space left"),
        // The orbit file too, which is written last, after the picture: refused before the render where
        // its path cannot be (on a full disk: OrbitFileAccessTests).
        (["--zoom", "1e10", "--orbit-out", "/proc/o.orbit"], 73, "does not accept new files"),
        (["--zoom", "1e10", "--orbit-out", "no-such-folder/o.orbit"], 73, "does not exist"),
        (
            ["--zoom", "1e10", "--zoom-to", "1e12", "--frames", "3", "-o", "f%d.png", "--orbit-out", "/proc/z.orbit"],
            73, "does not accept new files"
        ),
    ]

    @Test("one clear line, a documented exit code, and no file left behind", arguments: cases)
    func rejected(arguments: [String], status: Int32, mention: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["render", "--size", "64x48"] + arguments, in: folder)
        expectRefusal(result, status: status, mentioning: mention, leaving: folder)
        #expect(result.standardOutput.isEmpty)
        if status == 64 {
            #expect(result.standardError.contains("Usage: mandel render"), "usage errors show the usage line")
        }
    }

    @Test(
        "a read-only folder cannot be written into",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func readOnlyFolder() throws {
        let folder = temporaryFolder()
        defer {
            chmod(folder, 0o777)
            try? FileManager.default.removeItem(atPath: folder)
        }
        chmod(folder, 0o555)
        let result = try MandelProcess.run(
            ["render", "--size", "16", "-o", "x.png"], in: folder, launch: .init(asNobody: true))
        expectRefusal(result, status: 73, mentioning: "permission denied", leaving: folder)
    }
}
