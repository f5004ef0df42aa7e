import Foundation
import Testing

@Suite("Bad input")
struct BadInputTests {
    /// Each: the arguments after `render`, the exit code, and words the first stderr line must contain.
    static let cases: [([String], Int32, String)] = [
        (["--size", "0x10"], 64, "--size"),
        (["--size", "-5"], 64, "--size sides must be from 1 to 2147483647"),
        (["--size", "10x10x10"], 64, "--size"),
        (["--size", "abc"], 64, "--size"),
        (["--size", "10x"], 64, "--size"),
        (["--size", "2147483648x10"], 64, "--size sides must be from 1 to 2147483647"),
        (["--size", "20000x20000", "--ownership-map", "m.png"], 64, "268435456"),
        (["--center", "nan,0"], 64, "--center"),
        (["--center", "0,inf"], 64, "--center"),
        (["--center", "1"], 64, "--center"),
        (["--center", "1,2,3"], 64, "--center"),
        (["--zoom", "0"], 64, "--zoom"),
        (["--zoom", "-2"], 64, "--zoom must be a finite number"),
        (["--zoom", "inf"], 64, "--zoom"),
        (["--iterations", "0"], 64, "--iterations"),
        (["--iterations", "1000000000"], 64, "--iterations"),
        (["--color", "purple"], 64, "--color"),
        (["--strategy", "fibers"], 64, "--strategy must be one of serial, thread, operation, gcd, apply, tasks, pthread"),
        (["--workers", "0"], 64, "--workers"),
        (["--workers", "5000"], 64, "--workers"),
        (["--workers", "-3"], 64, "--workers must be from 1"),
        (["--workers", "abc"], 64, "--workers"),
        (["--grace", "-1"], 64, "--grace must be"),
        (["--grace", "nan"], 64, "--grace must be"),
        (["--split", "diagonal"], 64, "--split"),
        (["--tile", "0x8"], 64, "--tile"),
        (["--tile", "axb"], 64, "--tile"),
        (["--size", "32", "--tile", "64"], 64, "--tile"),
        (["--preset", "benchmarks-game", "--center", "0,0"], 64, "--center"),
        (["--preset", "benchmarks-game", "--iterations", "100"], 64, "--iterations"),
        (["--preset", "benchmarks-game", "--size", "20x10"], 64, "N×N"),
        (["--preset", "mandelbulb"], 64, "--preset"),
        (["--format", "pbm"], 64, "--format pbm"),
        (["--format", "gif"], 64, "--format"),
        (["--kernel", "gpu"], 64, "--kernel"),
        (["--palette", "sunset"], 64, "--palette: unknown palette 'sunset'"),
        (["--palette", "#12345g,#000000"], 64, "'#12345g' is not a colour"),
        (["--palette", "fire", "--color", "bw"], 64, "--color smooth and histogram only"),
        (["--color", "histogram", "--palette-cycle", "32"], 64, "which histogram colouring does not use"),
        (["--palette-cycle", "0"], 64, "--palette-cycle"),
        (["--palette-offset", "2"], 64, "--palette-offset"),
        (["--preset", "benchmarks-game", "--palette", "fire"], 64, "remove --palette"),
        (["--julia", "0.3"], 64, "--julia must be two numbers"),
        (["--julia", "nan,0"], 64, "--julia must be finite"),
        (["--preset", "benchmarks-game", "--julia", "0,0"], 64, "remove --julia"),
        (["--supersample", "9"], 64, "--supersample must be from 1 to 8"),
        (["--supersample", "2", "--color", "bw", "--format", "pbm"], 64, "--format pbm has one bit per pixel"),
        (["--preset", "benchmarks-game", "--supersample", "2"], 64, "remove --supersample"),
        (["-o", "no-such-folder/x.png"], 73, "does not exist"),
        (["-o", "."], 73, "directory"),
        (["-o", "/dev/full"], 74, "no space left"),
        (["--band-height", "8", "-o", "/dev/full"], 74, "no space left"),
        (["--color", "bw", "--format", "pbm", "--compression", "fast"], 64, "--compression sets how hard the PNG encoder works"),
        (["--compression", "tiny"], 64, "--compression"),
        (["--band-height", "0"], 64, "--band-height must be a number of rows, 1 or more"),
        (["--band-height", "8", "--ownership-map", "m.png"], 64, "need the whole picture in memory"),
        (["--size", "20000", "--cost-map", "c.png"], 64, "need the whole picture in memory (without them, render streams it in bands)"),
        (["-o", "/proc/x.png"], 73, "not writable"),
        (["--trace", "/proc/t.json"], 73, "not writable"),
    ]

    @Test("one clear line, a documented exit code, and no file left behind", arguments: cases)
    func rejected(arguments: [String], status: Int32, mention: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["render", "--size", "64x48"] + arguments, in: folder)
        #expect(result.status == status, "\(arguments): \(result.standardError)")
        let firstLine = result.standardError.split(separator: "\n").first.map(String.init) ?? ""
        #expect(firstLine.contains(mention), "\(arguments): \(firstLine)")
        #expect(!result.standardError.contains("Fatal error"))
        #expect(result.standardOutput.isEmpty)
        #expect(contents(of: folder).isEmpty, "\(arguments) left \(contents(of: folder))")
    }

    @Test("a read-only folder cannot be written into", .enabled(if: getuid() != 0, "root can write anywhere"))
    func readOnlyFolder() throws {
        let folder = temporaryFolder()
        defer {
            chmod(folder, 0o755)
            try? FileManager.default.removeItem(atPath: folder)
        }
        chmod(folder, 0o555)
        let result = try MandelProcess.run(["render", "--size", "16", "-o", "x.png"], in: folder)
        #expect(result.status == 73)
        #expect(contents(of: folder).isEmpty)
    }
}
