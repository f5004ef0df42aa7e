import Foundation
import MandelbrotCore
import ProcessTestSupport
import Testing

/// A join's and a part's outputs: SIGTERM's grace (issue 44, item 12), outputs of a known size
/// checked against free space before the work (item 11), and a part's `--counts` (item 14).
@Suite("Parts and a join: outputs, space and SIGTERM")
struct PartOutputTests {
    /// A picture whose PNG is about 100 KiB (more than a pipe or the small disk holds), as 3 parts
    /// `p0`…`p2`, and the one-machine `one.png`.
    static func largerParts() throws -> String {
        let folder = temporaryFolder()
        let picture = ["render", "--size", "600x400", "--color", "smooth", "--center", "-0.74,0.12", "--zoom", "3"]
        for (extra, name) in [
            ([], "one.png"), (["--part", "0/3"], "p0"), (["--part", "1/3"], "p1"), (["--part", "2/3"], "p2"),
        ] {
            let result = try MandelProcess.run(picture + extra + ["-o", name], in: folder)
            #expect(result.status == 0, "\(result.standardError)")
        }
        return folder
    }

    /// Starts `mandel join p0 p1 p2 -o fifo` with `grace`, into a FIFO whose pipe holds one page, and
    /// returns once the PNG has begun to arrive: the join is then writing, blocked on the full pipe.
    static func startBlockedJoin(in folder: String, grace: String) throws -> (Process, Int32) {
        #expect(mkfifo(folder + "/fifo", 0o644) == 0)
        let reader = open(folder + "/fifo", O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        // F_SETPIPE_SZ (Linux's 1031, which Glibc's module does not export): the smallest pipe, one page.
        #expect(fcntl(reader, 1031, 4096) == 4096, "the pipe could not be made smaller")
        let process = try MandelProcess.start(["join", "p0", "p1", "p2", "--grace", grace, "-o", "fifo"], in: folder)
        var ready = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
        let started = Date()
        while poll(&ready, 1, 100) == 0 && Date().timeIntervalSince(started) < 30 {}
        #expect(ready.revents & Int16(POLLIN) != 0, "no PNG came within 30 s")
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) & ~O_NONBLOCK)
        return (process, reader)
    }

    static func standardError(of process: Process) -> String {
        String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test("SIGTERM in the middle of a join with --grace: the join finishes, the PNG is whole, exit 0 with a note")
    func terminateWithinGrace() throws {
        let folder = try Self.largerParts()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (process, reader) = try Self.startBlockedJoin(in: folder, grace: "60")
        let stream = FileHandle(fileDescriptor: reader, closeOnDealloc: true)
        process.terminate()
        let png = try MandelProcess.readUntil(stream, of: process, waitingFor: "the joined PNG", deadline: 30) { _ in
            false
        }
        try MandelProcess.waitForExit(process, waitingFor: "the join to exit after SIGTERM", deadline: 30)
        let errorText = Self.standardError(of: process)
        #expect(process.terminationStatus == 0, "\(errorText)")
        #expect(errorText.contains("terminated: finished the join within the grace period"), "\(errorText)")
        #expect(png == (try Data(contentsOf: URL(fileURLWithPath: folder + "/one.png"))))
    }

    @Test("SIGTERM in the middle of a join with --grace 0: cancelled, exit 143, one line, nothing left")
    func terminateWithoutGrace() throws {
        let folder = try Self.largerParts()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = contents(of: folder)
        let (process, reader) = try Self.startBlockedJoin(in: folder, grace: "0")
        defer { close(reader) }
        process.terminate()
        try MandelProcess.waitForExit(process, waitingFor: "the join to exit after SIGTERM", deadline: 10)
        let errorText = Self.standardError(of: process)
        #expect(process.terminationStatus == 143, "\(errorText)")
        #expect(errorText.split(separator: "\n").count == 1 && errorText.hasPrefix("mandel: "), "\(errorText)")
        #expect(contents(of: folder) == (before + ["fifo"]).sorted(), "left \(contents(of: folder))")
    }

    @Test("join --grace takes what render's does: 0…3600 seconds")
    func graceRange() throws {
        let result = try MandelProcess.run(["join", "p0", "--grace", "-1"])
        expectRefusal(result, status: 64, mentioning: "--grace must be a number of seconds from 0 to 3600 (got -1.0)")
    }

    /// Runs `body` with a 64 KiB tmpfs mounted at `folder/small`, unmounted after.
    static func withSmallDisk(in folder: String, _ body: (String) throws -> Void) throws {
        let small = folder + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: false)
        try #require(try shell("mount -t tmpfs -o size=64k tmpfs '\(small)'") == 0, "could not mount a tmpfs")
        defer { _ = try? shell("umount '\(small)'") }
        try body(small)
        #expect(contents(of: small).isEmpty, "left \(contents(of: small))")
    }

    /// Runs a shell command and returns its exit status, killing it after 10 s.
    static func shell(_ command: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        try process.run()
        try MandelProcess.waitForExit(process, waitingFor: command, deadline: 10)
        return process.terminationStatus
    }

    @Test(
        "a join onto a disk too small for its PNG is refused before its first byte: 73 with the numbers",
        .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func joinIntoSmallDisk() throws {
        let folder = try Self.largerParts()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let size = try FileManager.default.attributesOfItem(atPath: folder + "/one.png")[.size] as! Int
        try #require(size > 64 << 10, "the PNG (\(size) bytes) must not fit on the small disk")
        try Self.withSmallDisk(in: folder) { _ in
            let result = try MandelProcess.run(["join", "p0", "p1", "p2", "-o", "small/out.png"], in: folder)
            expectRefusal(
                result, status: 73,
                mentioning: "cannot create 'small/out.png': the joined PNG takes \(ByteCount(size)), and its file "
                    + "system has 64.0 KiB free")
        }
    }

    @Test(
        "render --counts onto a disk too small for them, alone or beside the PNG: 73 before the render",
        .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func countsIntoSmallDisk() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 200×100 counts are 80,128 bytes, more than the disk; 100×162 counts (64,928 bytes) fit alone, and with
        // the PNG's least (1,071 bytes) they do not.
        let cases = [
            (
                ["--size", "200x100", "--counts", "small/c.npy", "-o", "x.png"],
                "cannot create 'small/c.npy': the counts of a 200x100 picture take 78.3 KiB, and its file system has "
                    + "64.0 KiB free"
            ),
            (
                ["--size", "100x162", "--counts", "small/c.npy", "-o", "small/x.png"],
                "cannot create 'small/x.png': a 100x162 PNG takes at least 1.0 KiB (64.5 KiB with the other outputs "
                    + "there), and its file system has 64.0 KiB free"
            ),
        ]
        try Self.withSmallDisk(in: folder) { _ in
            for (arguments, message) in cases {
                let result = try MandelProcess.run(["render"] + arguments, in: folder)
                expectRefusal(result, status: 73, mentioning: message)
                #expect(!FileManager.default.fileExists(atPath: folder + "/x.png"))
            }
        }
    }

    @Test("a part's --counts hold its own rows: the parts' arrays stacked in K order are the picture's")
    func countsOfParts() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = ["render", "--size", "1200x100", "--color", "gray", "--iterations", "300"]
        #expect(try MandelProcess.run(picture + ["--counts", "whole.npy", "-o", "one.png"], in: folder).status == 0)
        var stacked = Data()
        var rows = 0
        for index in 0..<3 {
            let result = try MandelProcess.run(
                picture + ["--part", "\(index)/3", "--counts", "c\(index).npy", "-o", "p\(index)"], in: folder)
            #expect(result.status == 0, "\(result.standardError)")
            let (shape, data) = try NumPyArray.read(folder + "/c\(index).npy")
            // The report names the part's rows, and the rows before them it rendered for its dictionary:
            // "part 1 of 3 of 1200x100, rows 30–65 (+28 before, for the dictionary)": 28 rows of 1,201
            // bytes fill deflate's 32 KiB window, so the part starts past the picture's top. They follow the
            // last part's, and with those before they are the rows the JSON of the same run says it rendered.
            let line = try #require(
                result.standardOutput.firstMatch(
                    of:
                        /part (\d) of 3 of 1200x100, rows (\d+)–(\d+)(?: \(\+(\d+) before, for the dictionary\))?: 1200x(\d+),/
                ),
                "\(result.standardOutput)")
            let (first, last) = (Int(line.2)!, Int(line.3)!)
            let before = line.4.map { Int($0)! } ?? 0
            #expect(Int(line.1) == index && first == rows && before <= first, "\(result.standardOutput)")
            #expect(Int(line.5) == before + last - first + 1, "\(result.standardOutput)")
            let json = try MandelProcess.run(
                picture + ["--part", "\(index)/3", "--json", "-o", "j\(index)"], in: folder)
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            #expect(
                report["height"] as? Int == before + last - first + 1, "part \(index): \(report["height"] ?? "none")")
            let named = last - first + 1
            #expect(shape == "(\(named), 1200)", "part \(index): \(shape), \(result.standardOutput)")
            rows += named
            stacked += data
        }
        let (shape, whole) = try NumPyArray.read(folder + "/whole.npy")
        #expect(shape == "(100, 1200)" && rows == 100)
        #expect(stacked == whole, "the parts' counts stacked differ from the picture's")
    }
}

/// A `.npy` file's shape, as its header writes it, and its data.
enum NumPyArray {
    static func read(_ path: String) throws -> (shape: String, data: Data) {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
        let header = String(decoding: bytes[10..<(10 + headerLength)], as: UTF8.self)
        let shape = header.firstMatch(of: /'shape': (\([^)]*\))/).map { String($0.1) } ?? ""
        return (shape, bytes.subdata(in: (10 + headerLength)..<bytes.count))
    }
}
