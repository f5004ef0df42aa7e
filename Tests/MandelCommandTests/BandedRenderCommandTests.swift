import Foundation
import ImageFiles
import ProcessTestSupport
import StrategyCatalog
import Testing

@Suite("Banded render (mandel render --band-height)")
struct BandedRenderCommandTests {
    /// The bytes of a file.
    static func bytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }

    @Test("bands give the same file as the whole picture, for every strategy", arguments: StrategyCatalog.names)
    func sameFile(strategy: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = [
            "render", "--strategy", strategy, "--size", "131x97", "--center", "-0.75,0.1", "--zoom", "3",
            "--iterations", "300", "--tile", "16x8",
        ]
        let whole = try MandelProcess.run(picture + ["-o", "whole.png", "--json"], in: folder)
        let banded = try MandelProcess.run(picture + ["--band-height", "10", "-o", "banded.png", "--json"], in: folder)
        #expect(whole.status == 0 && banded.status == 0, "\(whole.standardError) \(banded.standardError)")
        #expect(Self.bytes(folder + "/whole.png") == Self.bytes(folder + "/banded.png"))
        let wholeReport = try JSONSerialization.jsonObject(with: Data(whole.standardOutput.utf8)) as! [String: Any]
        let bandedReport = try JSONSerialization.jsonObject(with: Data(banded.standardOutput.utf8)) as! [String: Any]
        #expect(wholeReport["checksum"] as? String == bandedReport["checksum"] as? String)
        #expect(bandedReport["band_rows"] as? Int == 10)
        #expect(wholeReport["band_rows"] is NSNull, "a picture rendered whole has band_rows null")
        #expect(bandedReport["total_iterations"] as? Int == wholeReport["total_iterations"] as? Int)
    }

    @Test(
        "every option streams: histogram, supersampling, Julia, the preset and PBM",
        arguments: [
            ["--color", "histogram", "--split", "rows"],
            ["--supersample", "2", "--color", "gray", "--split", "bands"],
            ["--julia", "-0.8,0.156", "--center", "0,0"],
            ["--preset", "benchmarks-game", "--size", "97", "--format", "pbm"],
            ["--color", "bw", "--format", "pbm", "--strategy", "pthread"],
            ["--compression", "fast", "--strategy", "tasks"],
            ["--compression", "small", "--color", "histogram"],
        ])
    func everyOption(options: [String]) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let size = options.contains("--preset") ? [] : ["--size", "83x61"]
        let whole = try MandelProcess.run(["render"] + size + options + ["-o", "whole"], in: folder)
        let banded = try MandelProcess.run(
            ["render"] + size + options + ["--band-height", "7", "-o", "banded"], in: folder)
        #expect(whole.status == 0 && banded.status == 0, "\(whole.standardError) \(banded.standardError)")
        #expect(Self.bytes(folder + "/whole") == Self.bytes(folder + "/banded"), "\(options)")
        #expect(banded.standardOutput.contains("bands of 7 rows, written while rendering"))
    }

    @Test("the trace of a banded render has one slice per band and worker")
    func trace() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "200x120", "--tile", "8", "--band-height", "40", "--trace", "t.json", "-o", "p.png"],
            in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let trace = try JSONSerialization.jsonObject(with: Self.bytes(folder + "/t.json")) as! [String: Any]
        let slices = (trace["traceEvents"] as! [[String: Any]]).filter { $0["cat"] as? String == "tile" }
        #expect((3...6).contains(slices.count), "3 bands × 1 or 2 workers, not 375 tiles: \(slices.count)")
        let rows = Set(slices.compactMap { ($0["args"] as? [String: Any])?["y"] as? Int })
        #expect(rows == [0, 40, 80])
    }

    @Test("a picture wider than libpng's default limit of 1,000,000 is written: only the PNG format limits the sides")
    func widerThanLibpngDefault() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "render", "--size", "1200000x3", "--color", "bw", "--kernel", "scalar", "--iterations", "20", "-o",
                "wide.png",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let header = [UInt8](Self.bytes(folder + "/wide.png").prefix(24))
        #expect(header.count == 24)
        #expect(header[16...19].reduce(0) { $0 << 8 | Int($1) } == 1_200_000)
        #expect(header[20...23].reduce(0) { $0 << 8 | Int($1) } == 3)
    }

    @Test("a write that fails mid-way (a file size limit) stops, exits 74 and leaves no file")
    func failsMidWay() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // mandel turns SIGXFSZ into a write error: writing past the limit fails with EFBIG.
        let result = try MandelProcess.run(
            ["render", "--size", "1500x1500", "--band-height", "32", "-o", "big.png"], in: folder,
            launch: .init(shellSetup: "ulimit -f 256"))
        expectRefusal(
            result, status: 74,
            mentioning: "could not write 'big.png': the file would be larger than this process may write")
        #expect(result.standardOutput.isEmpty)
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
    }
}

/// Apart from the other suites so that the AddressSanitizer leg can skip it:
/// ASan's shadow memory and quarantine make resident memory meaningless there.
@Suite("Bounded memory")
struct BoundedMemoryTests {
    @Test("a tall picture renders in bounded memory: peak resident memory far below the picture's size")
    func tallPicture() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 2048 × 65536 gray is 128 MiB of pixels. Far from the set, with the scalar
        // kernel and gray levels, so that even the debug build takes seconds.
        let result = try MandelProcess.run(
            [
                "render", "--size", "2048x65536", "--center", "30,30", "--zoom", "0.01", "--iterations", "20",
                "--color", "gray", "--kernel", "scalar", "--json", "-o", "tall.png",
            ],
            in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        let peak = report["peak_resident_bytes"] as! Int
        #expect(report["band_rows"] as? Int == 4096, "a picture this size renders in bands of 8 MiB by default")
        // The process's own ~25 MiB, three 8 MiB bands in flight and the encoder: about 50 MiB alone.
        // (The 82 MiB once seen under the whole suite was the test process's own size: Linux's
        // ru_maxrss carried it over exec, see AgreeingReportTests.peakIsItsOwn.) A render that held
        // the whole picture would need its 128 MiB of pixels and the process's own besides.
        #expect(peak < 100 << 20, "peak resident \(peak >> 20) MiB for a 128 MiB picture: \(result.standardOutput)")
        // The PNG really is that tall: its header says so.
        let header = [UInt8](BandedRenderCommandTests.bytes(folder + "/tall.png").prefix(24))
        let height = header[20...23].reduce(0) { $0 << 8 | Int($1) }
        #expect(height == 65536)
    }
}
