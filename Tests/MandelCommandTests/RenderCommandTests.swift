import Foundation
import ImageFiles
import ProcessTestSupport
import StrategyCatalog
import Testing

@Suite("mandel render")
struct RenderCommandTests {
    @Test("renders a PNG, prints one line, and the PNG says how it was made", arguments: StrategyCatalog.names)
    func renders(strategy: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "render", "--strategy", strategy, "--size", "90x60", "--iterations", "100", "--color", "gray", "-o",
                "out.png",
            ],
            in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("\(strategy): 90x60, 100 iterations") == true)
        #expect(result.standardOutput.contains("wall ") && result.standardOutput.contains("Mpixel/s"))
        #expect(contents(of: folder) == ["out.png"])
        let image = try PNGImage(contentsOf: folder + "/out.png")
        #expect(image.width == 90 && image.height == 60 && image.channels == 1)
        #expect(image.texts["mandel.strategy"] == nil, "the strategy is a fact of the run, not of the picture")
        #expect(image.texts["mandel.iterations"] == "100")
        #expect(image.texts["mandel.center"] == "-0.5,0.0")
        #expect(image.texts["Software"]?.hasPrefix("mandel ") == true)
    }

    @Test("render --merge: every mechanism writes the same file, and the line and the JSON say what merging cost")
    func merge() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var files: [Data] = []
        for merge in ["queue", "mutex", "barrier", "atomic", "private"] {
            let arguments = [
                "render", "--size", "80x60", "--color", "histogram", "--strategy", "gcd", "--merge", merge,
                "--merge-batch", "32", "-o", "\(merge).png",
            ]
            let line = try MandelProcess.run(arguments, in: folder)
            #expect(line.status == 0, "\(line.standardError)")
            #expect(line.standardOutput.contains(" | merge \(merge), batch 32: "), "\(line.standardOutput)")
            let json = try MandelProcess.run(arguments + ["--json"], in: folder)
            let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as! [String: Any]
            #expect(object["merge"] as? String == merge)
            #expect(object["merge_batch"] as? Int == 32)
            #expect((object["merge_batches"] as? Int ?? 0) > 0)
            #expect(object["merge_seconds"] is Double && object["merge_wait_seconds"] != nil)
            files.append(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(merge).png")))
        }
        #expect(Set(files).count == 1, "the file does not depend on the merge")
        let plain = try MandelProcess.run(["render", "--size", "40", "--json", "-o", "p.png"], in: folder)
        let object = try JSONSerialization.jsonObject(with: Data(plain.standardOutput.utf8)) as! [String: Any]
        #expect(object["merge"] is NSNull, "no histogram, no merge")
    }

    @Test("render --order centre: the same file, and the line and the JSON say when the centre was done")
    func order() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for order in ["rows", "centre"] {
            let result = try MandelProcess.run(
                ["render", "--size", "96x64", "--tile", "16", "--order", order, "--json", "-o", "\(order).png"],
                in: folder)
            #expect(result.status == 0, "\(result.standardError)")
            let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
            #expect(object["order"] as? String == order)
            #expect((object["centre_done_seconds"] as? Double ?? 0) > 0)
        }
        let line = try MandelProcess.run(["render", "--size", "96x64", "--order", "centre", "-o", "l.png"], in: folder)
        #expect(line.standardOutput.contains(" | centre first: central quarter done at "), "\(line.standardOutput)")
        let files = try ["rows", "centre"].map { try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\($0).png")) }
        #expect(files[0] == files[1])
    }

    /// A strategy hands the preview to the main queue between its two renders, not after the
    /// second: the preview, a 64th of the work, comes in the first half of a render of a tenth of a
    /// second or more (apply handing it over after its second loop gave a first picture no sooner
    /// than the whole; no test looked at when it came, only that it did).
    @Test(
        "render --preview: the first picture comes well before the whole, for every strategy",
        arguments: StrategyCatalog.names)
    func previewComesFirst(strategy: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "render", "--size", "400x300", "--center", "-0.7,0.2", "--zoom", "2", "--iterations", "50000",
                "--workers", "2", "--strategy", strategy, "--preview", "8", "--preview-output", "p.png", "--json",
                "-o", "full.png",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let first = try #require(object["first_picture_seconds"] as? Double)
        let wall = try #require(object["wall_seconds"] as? Double)
        try #require(wall > 0.05, "\(strategy): a render of \(wall) s is too short to tell")
        #expect(first < wall / 2, "\(strategy): the first picture at \(first) s of \(wall) s")
    }

    @Test(
        "render --preview: the preview file is every K-th pixel of the picture, and the line and JSON say when it came")
    func preview() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for strategy in ["operation", "pthread"] {
            let result = try MandelProcess.run(
                [
                    "render", "--size", "90x61", "--strategy", strategy, "--preview", "4", "--preview-output",
                    "p.png", "--json", "-o", "full.png",
                ], in: folder)
            #expect(result.status == 0, "\(result.standardError)")
            let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
            let first = try #require(object["first_picture_seconds"] as? Double)
            #expect(first > 0 && first <= (object["wall_seconds"] as! Double))
            let preview = try PNGImage(contentsOf: folder + "/p.png")
            let full = try PNGImage(contentsOf: folder + "/full.png")
            #expect(preview.width == 23 && preview.height == 16)
            for y in 0..<preview.height {
                for x in 0..<preview.width {
                    let channels = preview.channels
                    let small = preview.pixels[
                        (y * preview.width + x) * channels..<(y * preview.width + x + 1) * channels]
                    let large = full.pixels[
                        (y * 4 * full.width + x * 4) * channels..<(y * 4 * full.width + x * 4 + 1) * channels]
                    #expect(Array(small) == Array(large), "\(strategy) \(x),\(y)")
                }
            }
        }
        let line = try MandelProcess.run(["render", "--size", "64", "--preview", "8", "-o", "l.png"], in: folder)
        #expect(line.standardOutput.contains(" | preview on the main queue at "), "\(line.standardOutput)")
        // A preview is in place as soon as it is ready: a cancel after it leaves it, and says so.
        let cancelled = try MandelProcess.run(
            [
                "render", "--size", "2000x1500", "--center", "-0.745,0.11", "--zoom", "20", "--iterations", "500000",
                "--preview", "16", "--preview-output", "c.png", "--cancel-after", "1500", "-o", "cancelled.png",
            ], in: folder)
        #expect(cancelled.status == 0, "\(cancelled.standardError)")
        // On a loaded machine the preview may not be ready by the cancel: then the line says no picture.
        #expect(
            cancelled.standardOutput.contains("; only the preview written, to c.png")
                == FileManager.default.fileExists(atPath: folder + "/c.png"), "\(cancelled.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/cancelled.png"))
    }

    @Test("--json's first_picture_seconds of a cancelled render is set exactly when its preview was written")
    func firstPictureOfCancelledRender() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var seen: Set<Bool> = []
        // Cancels from 1 ms to 40 ms: some before the preview is in place, some after.
        for cancelAfter in [1, 2, 3, 5, 8, 12, 20, 40] {
            try? FileManager.default.removeItem(atPath: folder + "/pv.png")
            let result = try MandelProcess.run(
                [
                    "render", "--size", "600x400", "--center", "-0.1225,0.7449", "--zoom", "30", "--iterations",
                    "20000", "--preview", "4", "--preview-output", "pv.png", "--cancel-after", "\(cancelAfter)",
                    "--json", "-o", "c.png",
                ], in: folder)
            #expect(result.status == 0, "\(result.standardError)")
            let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            let written = FileManager.default.fileExists(atPath: folder + "/pv.png")
            let first = report?["first_picture_seconds"] as? Double
            #expect((first != nil) == written, "cancel after \(cancelAfter) ms: \(first ?? -1), written \(written)")
            if let first { #expect(first > 0 && first < (report?["wall_seconds"] as? Double ?? 0) + 1e-9) }
            seen.insert(written)
        }
        // Both sides were reached (a machine too slow for any preview by 40 ms would miss one: it says so).
        #expect(seen.contains(false), "every preview was written before its cancel")
    }

    @Test(
        "a cancel during the preview ends cleanly every time: exit 0, cancelled, no picture",
        arguments: StrategyCatalog.names)
    func cancelDuringPreview(strategy: String) throws {
        // The operation strategy crashed in about one run in six here (corelibs keeps an
        // operation's dependents unretained, and a cancelled dependent was freed before the
        // operation it depended on finished): many short runs, cancelled 1 to 6 ms in; the other
        // strategies, which had no such crash, each cancel at every one of those moments once.
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for run in 0..<(strategy == "operation" ? 24 : 6) {
            let result = try MandelProcess.run(
                [
                    "render", "--strategy", strategy, "--size", "2000x1500", "--center", "-0.745,0.11", "--zoom",
                    "20", "--iterations", "50000", "--preview", "16", "--cancel-after", "\(run % 6 + 1)", "--json",
                    "-o", "p.png",
                ], in: folder)
            #expect(result.status == 0, "\(strategy), run \(run): \(result.status) \(result.standardError)")
            guard result.status == 0 else { return }
            let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            #expect(report?["cancelled"] as? Bool == true, "\(strategy), run \(run)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/p.png"))
        }
    }

    @Test("every strategy writes the same pixels")
    func identicalPixels() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var pictures: [[UInt8]] = []
        for strategy in StrategyCatalog.names {
            let result = try MandelProcess.run(
                [
                    "render", "--strategy", strategy, "--size", "77x51", "--split", "tiles", "--tile", "9x7",
                    "--workers", "3", "-o", "\(strategy).png",
                ],
                in: folder)
            #expect(result.status == 0)
            pictures.append(try PNGImage(contentsOf: "\(folder)/\(strategy).png").pixels)
        }
        #expect(Set(pictures).count == 1)
    }

    @Test("--compression trades time for size and never changes a pixel")
    func compression() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var pictures: [[UInt8]] = []
        var sizes: [Int] = []
        for compression in ["fast", "balanced", "small"] {
            let result = try MandelProcess.run(
                ["render", "--size", "160x120", "--compression", compression, "-o", "\(compression).png"], in: folder)
            #expect(result.status == 0, "\(result.standardError)")
            pictures.append(try PNGImage(contentsOf: "\(folder)/\(compression).png").pixels)
            sizes.append(
                try FileManager.default.attributesOfItem(atPath: "\(folder)/\(compression).png")[.size] as! Int)
        }
        #expect(Set(pictures).count == 1)
        #expect(sizes[0] > sizes[1] && sizes[2] <= sizes[1], "fast, balanced, small: \(sizes) bytes")
    }

    @Test("--json prints one object with the documented keys")
    func json() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "40", "--workers", "2", "--split", "bands", "--json", "-o", "j.png"], in: folder)
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        for key in [
            "strategy", "width", "height", "iterations", "workers", "wall_seconds", "cpu_seconds",
            "total_iterations", "output", "split", "tile", "worker_busy_seconds", "write_seconds", "format",
        ] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(object["strategy"] as? String == "gcd")
        #expect(object["width"] as? Int == 40)
        #expect(object["split"] as? String == "bands")
        #expect((object["worker_busy_seconds"] as? [Double])?.count == 2)
        #expect((object["total_iterations"] as? Int ?? 0) > 0)
    }

    @Test("bw writes the book's black-and-white picture: black set, white elsewhere")
    func blackAndWhite() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["render", "--size", "30x20", "--color", "bw", "-o", "bw.png"], in: folder)
        #expect(result.status == 0)
        let image = try PNGImage(contentsOf: folder + "/bw.png")
        #expect(image.bitDepth == 1, "one bit per pixel")
        #expect(Set(image.pixels) == [0, 255])
        #expect(image.pixels[10 * 30 + 15] == 0, "the centre, -0.5+0i, is in the set")
        #expect(image.pixels[0] == 255, "the corner is far outside")
    }

    @Test("the Benchmarks Game preset writes a P4 bitmap with the task's header and row padding")
    func benchmarksGamePBM() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--preset", "benchmarks-game", "--size", "13", "--format", "pbm", "--json", "-o", "bg.pbm"],
            in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/bg.pbm")))
        let header = Array("P4\n13 13\n".utf8)
        #expect(Array(bytes.prefix(header.count)) == header)
        #expect(bytes.count == header.count + 13 * 2, "13 pixels take 2 bytes a row")
        let rows = bytes.dropFirst(header.count)
        #expect(
            stride(from: 1, to: 26, by: 2).allSatisfy { rows[rows.startIndex + $0] & 0x07 == 0 }, "padding bits are 0")
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        #expect(object["iterations"] as? Int == 50)
    }

    @Test("--palette changes the colours, not the set; mandel palettes lists the names")
    func palettes() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, palette) in [("classic", "classic"), ("fire", "fire"), ("custom", "#000764,#ffaa00")] {
            let result = try MandelProcess.run(
                ["render", "--size", "40x30", "--palette", palette, "--palette-cycle", "20", "-o", "\(name).png"],
                in: folder)
            #expect(result.status == 0, "\(result.standardError)")
        }
        let pictures = try ["classic", "fire", "custom"].map { try PNGImage(contentsOf: "\(folder)/\($0).png").pixels }
        #expect(Set(pictures).count == 3)
        // The set itself stays black in every palette.
        let black = pictures.map { pixels in
            stride(from: 0, to: pixels.count, by: 3).filter {
                pixels[$0] == 0 && pixels[$0 + 1] == 0 && pixels[$0 + 2] == 0
            }
        }
        #expect(Set(black).count == 1)
        let listing = try MandelProcess.run(["palettes"])
        #expect(
            listing.standardOutput.split(separator: "\n").compactMap { $0.split(separator: " ").first }.contains("fire")
        )
    }

    @Test("--julia renders a Julia set, the same with every strategy, and says so in the PNG")
    func julia() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var pictures: [[UInt8]] = []
        for strategy in ["serial", "gcd", "tasks"] {
            let result = try MandelProcess.run(
                [
                    "render", "--strategy", strategy, "--julia", "-0.8,0.156", "--center", "0,0", "--size", "60x40",
                    "-o", "\(strategy).png",
                ],
                in: folder)
            #expect(result.status == 0, "\(result.standardError)")
            pictures.append(try PNGImage(contentsOf: "\(folder)/\(strategy).png").pixels)
        }
        #expect(Set(pictures).count == 1)
        #expect(try PNGImage(contentsOf: folder + "/gcd.png").texts["mandel.julia"] == "-0.8,0.156")
        let mandelbrot = try MandelProcess.run(
            ["render", "--center", "0,0", "--size", "60x40", "-o", "m.png"], in: folder)
        #expect(mandelbrot.status == 0)
        #expect(try PNGImage(contentsOf: folder + "/m.png").pixels != pictures[0])
    }

    @Test("mandel strategies lists every strategy with a line on how it works")
    func strategies() throws {
        let result = try MandelProcess.run(["strategies"])
        #expect(result.status == 0)
        let names = result.standardOutput.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) }
        #expect(names == StrategyCatalog.names)
        let details = try MandelProcess.run(["strategies", "--details"])
        #expect(details.status == 0)
        let lines = details.standardOutput.split(separator: "\n")
        #expect(lines.count == 6 * StrategyCatalog.names.count, "a line and five details per strategy")
        for mechanism in [
            "addDependency", "notify", "structured awaiting", "NSCondition", "queuePriority", "QoS", "helper",
        ] {
            #expect(details.standardOutput.contains(mechanism), "no \(mechanism) in the details")
        }
    }
}
