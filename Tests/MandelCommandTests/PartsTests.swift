import Foundation
import ProcessTestSupport
import Testing

/// `mandel render --part` and `mandel join`: one picture as parts, joined into the very bytes one machine writes.
@Suite("Parts and a join")
struct PartsTests {
    /// Strategies and worker counts that make the parts, one after another: each part is made differently.
    static let makers: [[String]] = [
        // process at 1: otherPictures' part 1 crosses to the helpers as a recipe of its own (a
        // benchmarks-game window's grid is the whole grid's rows shifted). At 1000x1000 its rows start
        // past 0 (rows 49–681; the 261 before 310 are the dictionary's); at 200x200 every part's start at 0.
        ["--strategy", "gcd", "--workers", "2"], ["--strategy", "process", "--workers", "2"],
        ["--strategy", "thread", "--workers", "3", "--split", "rows"],
        ["--strategy", "serial"], ["--strategy", "tasks", "--workers", "4", "--tile", "16x16"],
        ["--strategy", "pthread", "--workers", "2", "--split", "bands"],
        ["--strategy", "operation", "--workers", "3", "--band-height", "5"], ["--strategy", "apply", "--workers", "5"],
    ]

    static func file(_ folder: String, _ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
    }

    static func render(_ arguments: [String], in folder: String) throws {
        let result = try MandelProcess.run(["render"] + arguments, in: folder)
        #expect(result.status == 0, "render \(arguments): \(result.standardError)")
    }

    @Test(
        "for 1, 2, 3 and 7 parts made by different strategies and given shuffled, the join is the one-machine PNG",
        arguments: ["bw", "gray", "smooth"], ["360x90", "90x300", "160x160"])
    func joinIsOneMachine(color: String, size: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = [
            "--size", size, "--color", color, "--center", "-0.74,0.12", "--zoom", "3", "--iterations", "300",
        ]
        try Self.render(picture + ["--strategy", "serial", "-o", "one.png"], in: folder)
        let expected = try Self.file(folder, "one.png")
        var generator = SystemRandomNumberGenerator()
        for count in [1, 2, 3, 7] {
            var names: [String] = []
            for index in 0..<count {
                let name = "p\(count)-\(index)"
                names.append(name)
                try Self.render(
                    picture + Self.makers[(index + count) % Self.makers.count]
                        + ["--part", "\(index)/\(count)", "-o", name], in: folder)
            }
            names.shuffle(using: &generator)
            let joined = try MandelProcess.run(["join"] + names + ["-o", "joined-\(count).png"], in: folder)
            #expect(joined.status == 0, "\(joined.standardError)")
            #expect(joined.standardOutput.hasPrefix("joined \(count) part"), "\(joined.standardOutput)")
            #expect(
                try Self.file(folder, "joined-\(count).png") == expected,
                "\(color) \(size): \(count) parts joined in the order \(names) differ from the one-machine PNG")
        }
    }

    @Test(
        "parts of a supersampled Julia set, the benchmarks-game preset, small compression, a PNG to standard output",
        arguments: [
            ["--size", "150x120", "--julia", "-0.8,0.156", "--supersample", "2", "--palette", "fire"],
            ["--preset", "benchmarks-game", "--size", "1000"],
            ["--size", "200x130", "--color", "gray", "--compression", "small"],
            ["--size", "200x130", "--compression", "fast", "--iterations", "1000"],
            // 180 KiB of image data: the join's stream check inflates it in several pieces, some ending
            // inside a row, where it must carry its place in the row from one piece to the next.
            ["--size", "1000x700", "--iterations", "500"],
        ])
    func otherPictures(picture: [String]) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.render(picture + ["-o", "one.png"], in: folder)
        for index in 0..<3 {
            try Self.render(picture + Self.makers[index] + ["--part", "\(index)/3", "-o", "part\(index)"], in: folder)
        }
        // Every name of standard output is standard output: the PNG alone there, the report on standard error.
        for name in ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            _ = FileManager.default.createFile(atPath: folder + "/stdout.png", contents: nil)
            let joined = try MandelProcess.run(
                ["join", "part2", "part0", "part1", "-o", name], in: folder,
                launch: MandelProcess.Launch(standardOutputPath: folder + "/stdout.png"))
            #expect(joined.status == 0, "\(name): \(joined.standardError)")
            #expect(joined.standardError.hasPrefix("joined 3 parts"), "\(name): the report goes to standard error")
            #expect(joined.standardError.contains("-> standard output"), "\(name): \(joined.standardError)")
            #expect(try Self.file(folder, "stdout.png") == Self.file(folder, "one.png"), "\(name): \(picture)")
        }
    }
}

/// Apart from the other suites so that the AddressSanitizer leg skips it (its name holds
/// `BoundedMemoryTests`): ASan's quarantine makes resident memory meaningless there.
@Suite("Parts: bounded memory")
struct PartsBoundedMemoryTests {
    @Test(
        "join's line: the parts it joined, the image data it copied (the PNG's data chunks but the last) and its time")
    func joinLine() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let names = (0..<3).map { "q\($0).part" }
        for (index, name) in names.enumerated() {
            try PartsTests.render(["--size", "700x500", "--part", "\(index)/3", "-o", name], in: folder)
        }
        let joined = try MandelProcess.run(["join"] + names + ["-o", "q.png"], in: folder)
        #expect(joined.status == 0, "\(joined.standardError)")
        let line = joined.standardOutput.trimmingCharacters(in: .newlines)
        let match = try #require(
            line.wholeMatch(of: /joined 3 parts \(([\d.]+) (B|KiB|MiB) of image data\) in ([\d.]+) (ms|s) -> q\.png/),
            "\(line)")
        // The data chunks, 12 bytes of frame each, but the last: the stream's end, which the join writes itself.
        let png = [UInt8](try PartsTests.file(folder, "q.png"))
        var offset = 8
        var data = 0
        while offset + 8 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if png[offset + 4..<offset + 8].elementsEqual("IDAT".utf8) { data += length + 12 }
            offset += length + 12
        }
        let copied = Double(data - 16)
        let unit = ["B": 1.0, "KiB": 1024, "MiB": 1_048_576][String(match.2)]!
        // 700x500 of smooth colour: tens of KiB, printed to a tenth.
        #expect(copied > 10 * 1024 && abs(Double(match.1)! * unit - copied) <= 0.05 * unit, "\(line): \(copied) bytes")
        let seconds = Double(match.3)! * (match.4 == "ms" ? 1e-3 : 1)
        #expect(seconds > 0 && seconds < 20, "\(line)")
    }

    @Test("a part of a tall picture renders in bands, and the join streams: both far below the picture's size")
    func tallPicture() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 2048 × 131072 gray is 256 MiB of pixels, 128 MiB a part; far from the set, so that even the
        // debug build takes seconds.
        let picture = [
            "render", "--size", "2048x131072", "--center", "30,30", "--zoom", "0.01", "--iterations", "20", "--color",
            "gray", "--kernel", "scalar", "--json",
        ]
        for index in 0..<2 {
            let result = try MandelProcess.run(picture + ["--part", "\(index)/2", "-o", "p\(index)"], in: folder)
            #expect(result.status == 0, "\(result.standardError)")
            let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
            let peak = report["peak_resident_bytes"] as! Int
            #expect(report["band_rows"] as? Int == 4096, "a 128 MiB part renders in bands of 8 MiB")
            // As BoundedMemoryTests: the process, three 8 MiB bands in flight and the encoder, about 50 MiB
            // (what the suite once saw above that was the test process's own size); a part held whole would need
            // its 128 MiB of pixels besides.
            #expect(
                peak > 8 << 20 && peak < 100 << 20,
                "peak resident \(peak >> 20) MiB for a 128 MiB part: \(result.standardOutput)")
        }
        let join = try MandelProcess.run(
            ["join", "p1", "p0", "-o", "tall.png"], in: folder,
            launch: MandelProcess.Launch(shellSetup: "exec /usr/bin/time -f 'peak %M' \"$0\" \"$@\"; :"))
        #expect(join.status == 0, "\(join.standardError)")
        let peak = join.standardError.split(separator: "\n").last.flatMap { Int($0.dropFirst(5)) } ?? 0
        #expect(peak > 1024 && peak < 40 << 10, "the join's peak resident is \(peak) KiB")
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/tall.png")).prefix(24))
        #expect(header[20...23].reduce(0) { $0 << 8 | Int($1) } == 131072)
    }
}
