import Foundation
import ImageFiles
import ProcessTestSupport
import Testing

/// Tests that fail, round four: values that are reported or drawn, each compared with something
/// as fine as itself (issue 46's escapes were all of this kind, or a case no test reached).
@Suite("Reported values, each compared with what it states")
struct ReportedValuesTests {
    /// Runs `mandel render … --json` in `folder` and returns its object.
    static func report(_ arguments: [String], in folder: String) throws -> [String: Any] {
        let result = try MandelProcess.run(["render"] + arguments + ["--json"], in: folder)
        try #require(result.status == 0, "render \(arguments.joined(separator: " ")): \(result.standardError)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    @Test("a helper's tile times are real: each worker busy for a share of the wall time, as its tiles in the trace")
    func helperTimes() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The period-3 bulb: every tile takes milliseconds, and both helpers have several.
        let json = try Self.report(
            [
                "--strategy", "process", "--workers", "2", "--size", "256x192", "--center", "-0.122,0.745", "--zoom",
                "20", "--iterations", "20000", "--trace", "trace.json", "-o", "p.png",
            ], in: folder)
        let wall = try #require(json["wall_seconds"] as? Double)
        let busy = try #require(json["worker_busy_seconds"] as? [Double])
        #expect(busy.count == 2)
        for seconds in busy {
            // A helper holds tiles for most of the render (a tile in flight counts, scheduled or not).
            #expect(seconds > 0.2 * wall && seconds <= wall + 0.005, "busy \(seconds) s of a wall of \(wall) s")
        }
        let imbalance = try #require(json["imbalance"] as? Double)
        let mean = busy.reduce(0, +) / Double(busy.count)
        #expect(abs(imbalance - busy.max()! / mean) < 1e-9 && imbalance >= 1 && imbalance < 2, "imbalance \(imbalance)")

        // The trace's tiles: each a real duration, and each worker's sum its busy time.
        let trace = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/trace.json")))
                as? [String: Any])
        let events = try #require(trace["traceEvents"] as? [[String: Any]])
        let tiles = events.filter { ($0["name"] as? String)?.hasPrefix("tile ") == true && $0["ph"] as? String == "X" }
        #expect(tiles.count == 12, "4×3 tiles of 64×64")
        var sums = [Double](repeating: 0, count: 2)
        for tile in tiles {
            let duration = (tile["dur"] as? Double ?? -1) / 1e6
            #expect(duration > 0 && duration <= wall, "\(tile["name"] ?? "?"): \(duration) s")
            if let worker = tile["tid"] as? Int, sums.indices.contains(worker) { sums[worker] += duration }
        }
        for (sum, seconds) in zip(sums, busy) {
            #expect(abs(sum - seconds) < 0.001, "the trace's tiles \(sum) s, the report's \(seconds) s")
        }
    }

    @Test(
        "a histogram's two passes report the plan's workers, not their sum: one busy entry per worker",
        arguments: ["serial", "thread", "pthread", "process"])  // pooled mechanisms may use more threads
    func workersOfTwoPasses(strategy: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (size, workers) in [("64x64", 1), ("200x150", 2)] {
            let report = try Self.report(
                [
                    "--strategy", strategy, "--size", size, "--tile", "32", "--workers", "\(workers)", "--color",
                    "histogram", "--order", "centre",
                ], in: folder)
            let busy = report["worker_busy_seconds"] as? [Double] ?? []
            let planned = report["workers"] as? Int ?? 0
            #expect(planned == (strategy == "serial" ? 1 : workers), "\(strategy) \(size)")
            #expect(busy.count == planned, "\(strategy) \(size): \(busy) for \(planned) workers")
            #expect((report["threads_used"] as? Int ?? 0) <= planned, "\(strategy) \(size)")
            // Both passes' time is in the busy seconds: none more than the wall (a pooled mechanism may leave a
            // worker idle on a small picture), all of them together more than nothing.
            let wall = report["wall_seconds"] as? Double ?? 0
            #expect(busy.allSatisfy { $0 >= 0 && $0 <= wall + 1e-3 }, "\(strategy) \(size): \(busy) in \(wall) s")
            #expect(busy.reduce(0, +) > 0, "\(strategy) \(size)")
        }
    }

    @Test("render's rates are its counts over its wall time; kernel and region are what was asked")
    func ratesAndSettings() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for kernel in ["simd", "scalar"] {
            let json = try Self.report(
                ["--size", "160x120", "--iterations", "1000", "--kernel", kernel, "-o", "r.png"], in: folder)
            let wall = try #require(json["wall_seconds"] as? Double)
            let iterations = try #require(json["total_iterations"] as? Int)
            let rate = try #require(json["iterations_per_second"] as? Double)
            #expect(iterations > 160 * 120 && abs(rate * wall / Double(iterations) - 1) < 1e-6, "\(rate) a second")
            let megapixels = try #require(json["megapixels_per_second"] as? Double)
            #expect(abs(megapixels * wall / (160 * 120 / 1e6) - 1) < 1e-6, "\(megapixels) Mpixel/s")
            #expect(json["kernel"] as? String == kernel && json["region"] as? String == "view")
            // Not a part, and no helper: nothing replaced, nothing sent again.
            #expect(json["part"] is NSNull && json["helper_crashes"] as? Int == 0 && json["work_retried"] as? Int == 0)
        }
        let preset = try Self.report(["--preset", "benchmarks-game", "--size", "64", "-o", "b.png"], in: folder)
        #expect(preset["region"] as? String == "benchmarks-game")
    }

    @Test("compare's machine names the Swift it was built with; each rate within what one processor can do")
    func compareMachine() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["compare", "--strategies", "gcd", "--warmup", "2", "--runs", "3", "--size", "96x64", "--json", "-"],
            in: folder)
        try #require(result.status == 0, "\(result.standardError)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let machine = try #require(json["machine"] as? [String: Any])
        let swift = try #require(machine["swift"] as? String)
        #expect(swift.contains("6."), "swift: \(swift)")
        let workload = try #require(json["workload"] as? [String: Any])
        #expect(workload["warmup"] as? Int == 2 && workload["runs"] as? Int == 3, "\(workload)")
        let results = try #require(json["results"] as? [[String: Any]])
        // serial, always measured, and gcd: each with its three counted runs.
        #expect(results.count == 2 && results.allSatisfy { ($0["times"] as? [Double])?.count == 3 })
        for row in results {
            let rate = try #require(row["iterations_per_second"] as? Double)
            // More than nothing, less than 64 processors at 10⁹ iterations a second each.
            #expect(rate > 0 && rate < 64e9, "\(row["strategy"] ?? "?"): \(rate)")
        }
    }

    @Test("a part's report gives the whole picture's size, and the rows it renders in height")
    func partPictureSize() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var heights = 0
        for index in 0..<2 {
            let json = try Self.report(["--size", "400x300", "--part", "\(index)/2", "-o", "part\(index)"], in: folder)
            #expect(json["picture_width"] as? Int == 400 && json["picture_height"] as? Int == 300, "part \(index)")
            #expect(json["part"] as? [Int] == [index, 2], "part \(index): \(json["part"] ?? "none")")
            #expect(json["width"] as? Int == 400)
            let height = try #require(json["height"] as? Int)
            #expect(height > 0 && height < 300, "part \(index): \(height) rows")
            heights += height
        }
        // Each part renders its own rows and those its deflate window reaches back into (28 of 1,201 bytes).
        #expect(heights >= 300 && heights <= 300 + 2 * 28, "the parts' rows make the picture: \(heights)")
    }

    /// Each edge of the picture, where only its own samples coincide first: the centre's coordinate is ±1,
    /// where a Double's spacing doubles, so the samples past it (bottom, right, top or left) are the coarse ones.
    /// Both zooms are past 10⁶, so both render by perturbation: the reason tells the coincidence apart.
    @Test(
        "the default precision says neighbouring samples coincide wherever they do, whichever edge they are on",
        arguments: ["0,-1", "1,0", "0,1", "-1,0"])
    func everyEdge(center: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let common = ["--size", "64", "--center", center, "--iterations", "100", "-o", "e.png"]
        let past = try Self.report(common + ["--zoom", "2.5118864315095e14"], in: folder)
        #expect(past["precision"] as? String == "perturbation", "\(center): \(past["precision"] ?? "?")")
        #expect(past["precision_reason"] as? String == "samples-coincide", "\(center)")
        let before = try Self.report(common + ["--zoom", "6e13"], in: folder)
        #expect(before["precision"] as? String == "perturbation", "\(center): \(before["precision"] ?? "?")")
        #expect(before["precision_reason"] as? String == "deep-zoom", "\(center)")
        // With --precision double, the warning gives a zoom where samples coincide (its search
        // bisects a test that is not monotonic at these edges: 4.0e14 here).
        let asked = try Self.report(common + ["--zoom", "2.5118864315095e14", "--precision", "double"], in: folder)
        #expect(asked["precision_reason"] as? String == "asked")
        let limit = try #require(asked["precision_limit_zoom"] as? Double, "\(center)")
        #expect(limit > 6e13 && limit < 1e15, "\(center): \(limit)")
        let kept = try Self.report(common + ["--zoom", "6e13", "--precision", "double"], in: folder)
        #expect(kept["precision_limit_zoom"] is NSNull, "\(center)")
    }

    /// Perturbation and Double at a shallow view: the same counts but at a few chaotic pixels by the set's edge
    /// (2 of 6,144 here), and where the counts agree, the same colours to a level a channel (a smooth value's last
    /// bits differ between the two kernels). A smooth value one iteration off shifts the palette by 1/64 of a cycle.
    @Test(
        "colours by perturbation: smooth and histogram are Double's within two levels a channel where the counts agree",
        arguments: ["smooth", "histogram"])
    func deepColours(color: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let view = ["--size", "96x64", "--center", "-0.75,0.1", "--zoom", "4", "--iterations", "500", "--color", color]
        var pictures: [PNGImage] = []
        var counts: [[UInt32]] = []
        for precision in ["double", "perturbation"] {
            let result = try MandelProcess.run(
                ["render"] + view + [
                    "--precision", precision, "--counts", "\(precision).npy", "-o", "\(precision).png",
                ],
                in: folder)
            try #require(result.status == 0, "\(precision): \(result.standardError)")
            pictures.append(try PNGImage(contentsOf: folder + "/\(precision).png"))
            counts.append(try NumPyCounts(path: folder + "/\(precision).npy").counts)
        }
        try #require(
            pictures.allSatisfy { $0.pixels.count == 96 * 64 * 3 } && counts.allSatisfy { $0.count == 96 * 64 })
        let agreeing = (0..<(96 * 64)).filter { counts[0][$0] == counts[1][$0] }
        #expect(agreeing.count >= 96 * 64 * 99 / 100, "\(96 * 64 - agreeing.count) counts differ")
        var worst = 0
        for pixel in agreeing {
            for channel in 0..<3 {
                let sample = 3 * pixel + channel
                worst = max(worst, abs(Int(pictures[0].pixels[sample]) - Int(pictures[1].pixels[sample])))
            }
        }
        #expect(worst <= 2, "\(color): a channel differs by \(worst) where the counts agree")
        #expect(Set(pictures[0].pixels).count > 50, "\(color): not a flat picture")
    }
}
