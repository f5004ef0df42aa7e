import Foundation
import ImageFiles
import ProcessTestSupport
import StrategyCatalog
import Testing

/// A render that takes far longer than any test waits: a failure reported quickly was found before rendering.
let endlessRender = [
    "render", "--size", "4000x4000", "--center", "-0.1225,0.7449", "--zoom", "30", "--iterations", "1000000",
]

// MARK: - Output names

@Suite("Reliability: output names")
struct OutputNameTests {
    @Test(
        "one-character names are files like any other",
        arguments: [
            ["render", "--size", "40x30", "-o", "a"],
            ["render", "--size", "40x30", "-o", "p.png", "--trace", "t"],
            ["compare", "--size", "32", "--runs", "1", "--warmup", "0", "--strategies", "gcd", "--csv", "c"],
        ])
    func oneCharacter(arguments: [String]) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(arguments, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!contents(of: folder).isEmpty)
    }

    @Test("-o - writes the picture to standard output and the report to standard error")
    func standardOutput() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/out.png", contents: nil))
        let result = try MandelProcess.run(
            ["render", "--size", "40x30", "-o", "-"], in: folder, launch: .init(standardOutputPath: folder + "/out.png")
        )
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("-> standard output"))
        let image = try PNGImage(contentsOf: folder + "/out.png")
        #expect(image.width == 40 && image.height == 30)
    }

    @Test("--trace - writes the trace to standard output, and nothing else goes there")
    func traceToStandardOutput() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["render", "--size", "40x30", "-o", "p.png", "--trace", "-"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) is [String: Any])
    }

    @Test(
        "names that cannot work are refused before rendering, with the real cause",
        arguments: [
            (["-o", ""], "the name is empty"),
            (["-o", "x.png/"], "names a folder"),
            (["--trace", ""], "the name is empty"),
            (["-o", "/proc/x.png"], "does not accept new files"),
            (["-o", "missing/x.png"], "does not exist"),
            (["-o", String(repeating: "n", count: 256)], "at most 255"),
        ] as [([String], String)])
    func beforeRendering(arguments: [String], mention: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(endlessRender + arguments, in: folder)
        expectRefusal(result, status: 73, mentioning: mention, leaving: folder)
    }

    @Test("a 255-byte name, the longest a file may have, works: the temporary name is shortened, not the file's")
    func longestName() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = String(repeating: "n", count: 251) + ".png"
        let result = try MandelProcess.run(["render", "--size", "20", "-o", name], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(contents(of: folder) == [name])
    }
}

// MARK: - Replacing files, and outputs that share a file

@Suite("Reliability: replacing files")
struct ReplacingTests {
    /// Neither 0600 (the temporary file's own mode, which a replacement that forgot the old mode
    /// would keep) nor 0644 (a new file's under the usual umask).
    @Test("a replaced file keeps its permissions", arguments: [0o640, 0o664])
    func keepsMode(mode: Int) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(
            FileManager.default.createFile(
                atPath: folder + "/p.png", contents: Data("old".utf8), attributes: [.posixPermissions: mode]))
        let result = try MandelProcess.run(["render", "--size", "20", "-o", "p.png"], in: folder)
        #expect(result.status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/p.png")
        #expect(
            attributes[.posixPermissions] as? Int == mode,
            "\(String(mode, radix: 8)) became \(attributes[.posixPermissions] ?? "?")")
        #expect(try PNGImage(contentsOf: folder + "/p.png").width == 20)
    }

    @Test("a read-only file is refused and left as it was")
    func readOnly() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(
            FileManager.default.createFile(
                atPath: folder + "/p.png", contents: Data("keep".utf8), attributes: [.posixPermissions: 0o444]))
        let result = try MandelProcess.run(["render", "--size", "20", "-o", "p.png"], in: folder)
        expectRefusal(result, status: 73, mentioning: "read-only")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/p.png")) == Data("keep".utf8))
        #expect(contents(of: folder) == ["p.png"])
    }

    @Test("a symbolic link stays a link: the file it points to is replaced")
    func symbolicLink() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder + "/real/p.png", contents: Data("old".utf8)))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.png", withDestinationPath: "real/p.png")
        let result = try MandelProcess.run(["render", "--size", "20", "-o", "link.png"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/link.png") == "real/p.png")
        #expect(try PNGImage(contentsOf: folder + "/real/p.png").width == 20)
        #expect(contents(of: folder + "/real") == ["p.png"])
    }

    @Test("two outputs naming one file through a link are refused (64)")
    func sameFileThroughLink() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/x.json", contents: Data()))
        try FileManager.default.createSymbolicLink(atPath: folder + "/y.json", withDestinationPath: "x.json")
        let result = try MandelProcess.run(
            ["render", "--size", "20", "-o", "p.png", "--trace", "y.json", "--cost-map", "x.json"], in: folder)
        expectRefusal(result, status: 64, mentioning: "name the same file")
        #expect(contents(of: folder) == ["x.json", "y.json"])
    }

    @Test("every output of a run is published, or none: a trace that fails takes the picture with it")
    func allOrNothing() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "60x40", "-o", "p.png", "--ownership-map", "m.png", "--trace", "/dev/full"], in: folder
        )
        expectRefusal(result, status: 74, mentioning: "no space left", leaving: folder)
    }

    @Test("a report that cannot be written fails the run: a full disk (74), a closed pipe (141)")
    func standardOutputErrors() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let full = try MandelProcess.run(
            ["render", "--size", "20", "--json", "-o", "p.png"], in: folder,
            launch: .init(standardOutputPath: "/dev/full"))
        expectRefusal(full, status: 74, mentioning: "could not write standard output: no space left")
        let listing = try MandelProcess.run(["strategies"], launch: .init(standardOutputPath: "/dev/full"))
        expectRefusal(listing, status: 74, mentioning: "standard output")
        // A reader that has gone: SIGPIPE is a write error, reported and exited with 128 + 13.
        let process = try MandelProcess.start(
            ["render", "--size", "300x200", "--iterations", "3000", "--json", "-o", "q.png"], in: folder)
        try (process.standardOutput as! Pipe).fileHandleForReading.close()
        try MandelProcess.waitForExit(
            process, waitingFor: "mandel to exit after its standard output closed", deadline: 30)
        let errorText = String(
            decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 141, "\(errorText)")
        #expect(errorText.contains("broken pipe"))
    }
}

// MARK: - FIFOs and devices

@Suite("Reliability: FIFOs")
struct FIFOTests {
    @Test("a FIFO with no reader is refused at once instead of blocking")
    func noReader() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/fifo", 0o644) == 0)
        let result = try MandelProcess.run(["render", "--size", "20", "-o", "fifo"], in: folder)
        expectRefusal(result, status: 73, mentioning: "no process is reading")
    }

    @Test("a FIFO with a reader gets the picture")
    func withReader() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/fifo", 0o644) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat fifo > copy.png"]
        reader.currentDirectoryURL = URL(fileURLWithPath: folder)
        try reader.run()
        // Wait until the reader has the FIFO open.
        var result: MandelProcess.Result?
        for _ in 0..<100 {
            result = try MandelProcess.run(["render", "--size", "20", "-o", "fifo"], in: folder)
            if result?.status == 0 { break }
            usleep(20_000)
        }
        try MandelProcess.waitForExit(reader, waitingFor: "the reader of the named pipe to exit", deadline: 30)
        #expect(result?.status == 0, "\(result?.standardError ?? "")")
        #expect(try PNGImage(contentsOf: folder + "/copy.png").width == 20)
    }
}

// MARK: - Resources

@Suite("Reliability: memory, threads and descriptors")
struct ResourceTests {
    @Test("a picture that cannot fit in memory is refused before anything is allocated (71)")
    func tooLargeForMemory() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--supersample", "8", "--size", "2147483647x1", "-o", "x.png"], in: folder)
        expectRefusal(result, status: 71, mentioning: "not enough memory", leaving: folder)
    }

    @Test("a cost map under an address-space limit is refused with the sizes, nothing left (71)")
    func addressSpaceLimit() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "16000x16000", "--cost-map", "c.png", "-o", "p.png"], in: folder,
            launch: .init(shellSetup: "ulimit -v 2000000"))
        expectRefusal(result, status: 71, mentioning: "not enough memory", leaving: folder)
    }

    /// A 4 GB address space; the render's own memory besides the reference is a few MB.
    static let fourGigabytes = MandelProcess.Launch(shellSetup: "ulimit -v 4000000")

    /// The memory this machine has available (/proc/meminfo's MemAvailable), in bytes; 0 if unknown.
    static let machineAvailable: Int = {
        let text = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("MemAvailable:") } ?? ""
        return (line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
    }()

    /// The room a refusal says the process has ("can have 938.5 MiB more"), in MiB.
    static func roomSaid(_ line: String) -> Double? {
        guard let match = line.firstMatch(of: /can have ([0-9.]+) (KiB|MiB|GiB) more/), let value = Double(match.1)
        else { return nil }
        return value * ["KiB": 1.0 / 1024, "MiB": 1, "GiB": 1024][String(match.2)]!
    }

    /// Each limit's room is the limit less what that limit counts: `ulimit -v` the address space
    /// mapped (VmSize: the binary, its libraries, every thread's stack), `ulimit -d` the data segment
    /// only (VmData), tens of MiB less. No test had set `ulimit -d` (round eight's
    /// data-limit-counts-address-space counted it against the address space). The same refusal under
    /// each limit of 600,000 KiB (585.9 MiB): the data limit leaves nearly all of it, and more than
    /// the address-space limit leaves.
    @Test(
        "the room under 'ulimit -d' is the limit less the data segment; under 'ulimit -v', less the address space",
        .enabled(if: machineAvailable > 2 << 30))
    func eachLimitCountsItsOwn() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let limit = 600_000.0 / 1024
        var room: [String: Double] = [:]
        for option in ["-d", "-v"] {
            let result = try MandelProcess.run(
                ["render", "--zoom", "1e20", "--center=-0.1,0.1", "--iterations", "100000000", "--size", "16"]
                    + ["--precision", "perturbation", "--period", "off", "-o", "p.png"], in: folder,
                launch: .init(shellSetup: "ulimit \(option) 600000"), deadline: 60)
            expectRefusal(result, status: 71, mentioning: "needs", leaving: folder)
            let said: Double = try #require(Self.roomSaid(result.firstErrorLine), "\(result.firstErrorLine)")
            room[option] = said
        }
        let data = try #require(room["-d"])
        let address = try #require(room["-v"])
        #expect(data <= limit && data >= limit - 64, "ulimit -d: \(data) MiB of \(limit) said")
        #expect(address <= data - 32, "ulimit -v: \(address) MiB, ulimit -d: \(data) MiB of \(limit)")
    }

    @Test("a deep view whose orbit, table and lanes cannot fit is refused before its orbit: 71, one line, nothing left")
    func deepReferenceTooLarge() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Inside the main cardioid: the orbit runs to the limit. 100 million steps take 1.6 GB for
        // the orbit and 16 GB more for the table and the lanes' steps. (With --period on, the
        // default, the orbit is given the steps that fit instead: DeepLimitsTests.orbitWithoutPeriod.)
        let result = try MandelProcess.run(
            ["render", "--zoom", "1e20", "--center=-0.1,0.1", "--iterations", "100000000", "--size", "64x48"]
                + ["--precision", "perturbation", "--period", "off", "-o", "p.png"], in: folder,
            launch: Self.fourGigabytes, deadline: 60)
        expectRefusal(
            result, status: 71, mentioning: "with a reference orbit and table of 100000000 steps needs", leaving: folder
        )
    }

    @Test(
        "each process helper counts its copy of a deep view's reference: what fits one process does not fit three"
    )
    func deepReferenceInEveryHelper() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 10 million steps: about 2.2 GB in one process, 5 GB with two helpers. The reference
        // escapes at once (the check counts an orbit as long as the limit, with --period off), so gcd is quick.
        let view =
            ["render", "--zoom", "1e20", "--center", "2,0", "--iterations", "10000000", "--size", "128x96"]
            + ["--precision", "perturbation", "--period", "off"]
        let one = try MandelProcess.run(
            view + ["--workers", "2", "--strategy", "gcd", "-o", "gcd.png"], in: folder, launch: Self.fourGigabytes,
            deadline: 60)
        #expect(one.status == 0, "\(one.standardError)")
        try FileManager.default.removeItem(atPath: folder + "/gcd.png")
        let three = try MandelProcess.run(
            view + ["--workers", "2", "--strategy", "process", "-o", "process.png"], in: folder,
            launch: Self.fourGigabytes, deadline: 60)
        expectRefusal(
            three, status: 71, mentioning: "(and a copy in each of its 2 helper processes) needs", leaving: folder)
        // One helper: two copies (1.7 GiB each, 5.2 GiB for three) do not fit in 3 GB, and the words are for one.
        let two = try MandelProcess.run(
            view + ["--workers", "1", "--strategy", "process", "-o", "process.png"], in: folder,
            launch: MandelProcess.Launch(shellSetup: "ulimit -v 3000000"), deadline: 60)
        expectRefusal(two, status: 71, mentioning: "(and a copy in its helper process) needs", leaving: folder)
    }

    @Test("a picture that cannot fit on its file system is refused before rendering, with the sizes (73)")
    func tooLargeForDisk() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["render", "--size", "100000000x100000000", "-o", "x.png"], in: folder)
        expectRefusal(result, status: 73, mentioning: "takes at least", leaving: folder)
    }

    @Test("few file descriptors: a clear line and 71, never a crash, at every limit", arguments: [4, 5, 8, 12, 16, 18])
    func fileDescriptors(limit: Int) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "60x40", "-o", "p.png", "--trace", "t.json"], in: folder,
            launch: .init(shellSetup: "ulimit -n \(limit)"))
        if result.status == 0 {
            #expect(contents(of: folder) == ["p.png", "t.json"])
        } else {
            expectRefusal(result, status: 71, mentioning: "file descriptors", leaving: folder)
        }
    }

    @Test(
        "few threads, as a user the limit binds: every strategy says so (71) instead of hanging or crashing",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")),
        arguments: StrategyCatalog.names)
    func threads(strategy: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Every run needs 10 threads of its own, and each strategy its workers' (serial: none).
        for limit in [1, 6, 13] {
            let result = try MandelProcess.run(
                ["render", "--strategy", strategy, "--workers", "4", "--size", "256x256", "-o", "p.png"], in: folder,
                launch: .init(shellSetup: "exec prlimit --nproc=\(limit) -- \"$0\" \"$@\"", asNobody: true))
            if strategy == "serial" && limit == 13 {
                #expect(result.status == 0, "\(result.standardError)")
                try? FileManager.default.removeItem(atPath: folder + "/p.png")
            } else {
                expectRefusal(result, status: 71, mentioning: "threads", leaving: folder)
            }
        }
    }

    /// A sweep starts the threads of its widest point, wherever its list puts it, so its check
    /// counts that point's, as that point's render would (every sweep of the tests ran unlimited,
    /// so a check of the first point's went unseen, and failed mid-way at the widest).
    @Test(
        "a sweep under a thread limit its widest point does not fit is refused (71) before its first point, as that render is",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")),
        arguments: [("thread", "1,8", 8, 12), ("thread", "8,1", 8, 12), ("process", "1,4", 4, 40)])
    func sweepCountsItsWidestPoint(strategy: String, workers: String, widest: Int, limit: Int) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let launch = MandelProcess.Launch(shellSetup: "exec prlimit --nproc=\(limit) -- \"$0\" \"$@\"", asNobody: true)
        // 64 tiles: every worker of the widest point has one.
        let view = ["--size", "128", "--tile", "16"]
        let render = try MandelProcess.run(
            ["render", "--strategy", strategy, "--workers", "\(widest)"] + view + ["-o", "p.png"], in: folder,
            launch: launch)
        expectRefusal(render, status: 71, mentioning: "threads this run needs", leaving: folder)
        let needed = try #require(render.firstErrorLine.firstMatch(of: /cannot start the \d+ threads/)).output
        let sweep = try MandelProcess.run(
            ["sweep", "--strategies", strategy, "--workers", workers, "--runs", "1", "--warmup", "0"] + view,
            in: folder, launch: launch)
        expectRefusal(sweep, status: 71, mentioning: String(needed), leaving: folder)
    }

    /// The pthread strategy starts a joiner beside its workers: its check counts one thread more
    /// than thread's for the same workers (a count without the joiner went unseen: every limit of
    /// the tests left room for it).
    @Test(
        "under a thread limit, pthread's refusal counts its joiner: one thread more than thread's",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func pthreadCountsItsJoiner() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let launch = MandelProcess.Launch(shellSetup: "exec prlimit --nproc=12 -- \"$0\" \"$@\"", asNobody: true)
        var named: [String: Int] = [:]
        for strategy in ["thread", "pthread"] {
            let render = try MandelProcess.run(
                ["render", "--strategy", strategy, "--workers", "8", "--size", "128", "--tile", "16", "-o", "p.png"],
                in: folder, launch: launch)
            expectRefusal(render, status: 71, mentioning: "threads this run needs", leaving: folder)
            let count = try #require(render.firstErrorLine.firstMatch(of: /cannot start the (\d+) threads/)).output.1
            named[strategy] = Int(count)
        }
        // Eight workers and the process's ten threads besides them; pthread's joiner besides those.
        #expect(named["thread"] == 18, "\(named)")
        #expect(named["pthread"] == 19, "\(named)")
    }
}

// MARK: - Reports that agree

@Suite("Reliability: reports agree with themselves")
struct AgreementTests {
    @Test(
        "the JSON states the workers the plan keeps busy, and the PNG states none (a fact of the run)",
        arguments: [[], ["--workers", "1024"]])
    func workers(extra: [String]) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["render", "--size", "60x40", "--json", "-o", "p.png"] + extra, in: folder)
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        let workers = object["workers"] as! Int
        #expect(workers == 1, "a 60x40 picture is one 64x64 tile")
        #expect(try PNGImage(contentsOf: folder + "/p.png").texts["mandel.workers"] == nil)
    }

    @Test("compare --runs 1 names no fastest: too few runs")
    func tooFewRuns() throws {
        let result = try MandelProcess.run([
            "compare", "--size", "32", "--runs", "1", "--warmup", "0", "--strategies", "gcd",
        ])
        #expect(result.status == 0)
        let rows = result.standardOutput.split(separator: "\n")
        #expect(!rows.contains { $0.hasPrefix("* ") } && !result.standardOutput.contains("fastest at"))
        #expect(result.standardOutput.contains("too few runs"))
    }

    @Test("a file name with a newline keeps the report on one line")
    func newlineInName() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["render", "--size", "20", "-o", "a\nb.png"], in: folder)
        #expect(result.status == 0)
        #expect(result.standardOutput.split(separator: "\n").count == 1)
        #expect(result.standardOutput.contains("a\\nb.png"))
    }

    @Test("a view too deep for Double, forced to Double, is rendered with a warning that says where the limit is")
    func precision() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deep = try MandelProcess.run(
            [
                "render", "--size", "80x60", "--center", "-0.7436,0.1318", "--zoom", "1e15", "--precision", "double",
                "--json", "-o", "p.png",
            ],
            in: folder)
        #expect(deep.status == 0)
        #expect(
            deep.firstErrorLine.contains("warning")
                && deep.firstErrorLine.contains("neighbouring pixels sample the same point"))
        let object = try JSONSerialization.jsonObject(with: Data(deep.standardOutput.utf8)) as! [String: Any]
        let limit = try #require(object["precision_limit_zoom"] as? Double)
        #expect(limit > 1e12 && limit <= 1e15)
        let fine = try MandelProcess.run(
            ["render", "--size", "80x60", "--center", "-0.7436,0.1318", "--zoom", "1e5", "-o", "q.png"], in: folder)
        #expect(fine.status == 0 && fine.standardError.isEmpty, "\(fine.standardError)")
    }
}

// MARK: - Progress

@Suite("Reliability: progress")
struct ProgressTests {
    @Test("--progress on a pipe prints plain lines with elapsed time and an estimate; counts are 64-bit")
    func linesOnAPipe() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A million by a million, in bands of two rows: billions of tiles, more than 32 bits count.
        let (process, seen) = try MandelProcess.startAndWaitForProgress(
            ["render", "--size", "1000000x1000000", "--progress", "-o", "/dev/null"], in: folder)
        process.interrupt()
        try MandelProcess.waitForExit(process, waitingFor: "mandel to exit after SIGINT", deadline: 30)
        #expect(seen.contains("mandel: progress: "))
        let total = seen.split(separator: "/").dropFirst().first?.split(separator: " ").first.flatMap { Int($0) }
        #expect((total ?? 0) > Int(UInt32.max), "\(seen)")
    }
}
