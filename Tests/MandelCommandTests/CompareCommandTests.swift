import Foundation
import MandelbrotCore
import ProcessTestSupport
import StrategyCatalog
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Counts the `<g class="series">` groups of an SVG file.
func seriesCount(inSVG path: String) throws -> Int {
    final class Counter: NSObject, XMLParserDelegate {
        var count = 0
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if name == "g" && attributes["class"] == "series" { count += 1 }
        }
    }
    let counter = Counter()
    let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: path)))
    parser.delegate = counter
    #expect(parser.parse())
    return counter.count
}

@Suite("mandel compare and sweep")
struct CompareCommandTests {
    @Test("compare prints a row per strategy and writes JSON, CSV and a chart that agree")
    func compare() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "compare", "--size", "64x48", "--warmup", "0", "--runs", "3", "--json", "c.json", "--csv", "c.csv",
                "--chart", "c.svg",
            ],
            in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let strategies = StrategyCatalog.names
        for strategy in strategies {
            #expect(result.standardOutput.contains(" \(strategy) "), "no row for \(strategy)")
        }
        #expect(result.standardOutput.contains("is fastest at"))
        let object =
            try jsonObject(atPath: folder + "/c.json")
        let rows = object["results"] as! [[String: Any]]
        #expect(rows.map { $0["strategy"] as! String } == strategies)
        #expect(Set(rows.map { $0["checksum"] as! String }).count == 1, "every strategy drew the same pixels")
        #expect(rows.allSatisfy { ($0["times"] as! [Double]).count == 3 })
        let csv = try String(contentsOfFile: folder + "/c.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.count == strategies.count + 1)
        #expect(try seriesCount(inSVG: folder + "/c.svg") == strategies.count)
    }

    @Test("compare --strategies measures those plus the serial baseline")
    func someStrategies() throws {
        let result = try MandelProcess.run([
            "compare", "--size", "32", "--runs", "1", "--warmup", "0", "--strategies", "gcd,thread",
        ])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("too few runs"))
        let rows = result.standardOutput.split(separator: "\n").filter {
            $0.contains("x  ") && !$0.contains("strategy")
        }
        #expect(rows.count == 3)
    }

    @Test("sweep over workers writes one point per value and a line per strategy")
    func sweep() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "sweep", "--size", "48", "--workers", "1,2,3", "--runs", "1", "--warmup", "0", "--strategies",
                "thread,tasks",
                "--json", "s.json", "--csv", "s.csv", "--chart", "s.svg",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let object =
            try jsonObject(atPath: folder + "/s.json")
        let points = object["points"] as! [[String: Any]]
        #expect(points.map { $0["workers"] as? Int } == [1, 2, 3])
        #expect(points.allSatisfy { ($0["results"] as! [Any]).count == 3 })
        #expect(try seriesCount(inSVG: folder + "/s.svg") == 3)
        // The scaling model of each strategy, fitted to the medians: its predictions agree with them.
        let fits = try #require(object["scaling"] as? [[String: Any]])
        #expect(fits.map { $0["strategy"] as? String } == ["serial", "thread", "tasks"])
        for fit in fits {
            let name = fit["strategy"] as? String ?? ""
            let (sigma, kappa) = (fit["contention"] as? Double ?? -1, fit["coherency"] as? Double ?? -1)
            let serial = fit["serial_fraction"] as? Double ?? -1
            #expect(sigma >= 0 && kappa >= 0 && serial >= 0, "\(fit)")
            let medians = points.map { point in
                ((point["results"] as! [[String: Any]]).first { $0["strategy"] as? String == name }?["median"]
                    as? Double) ?? 0
            }
            // The law's speedup at 3 workers against the measured one, within the reported worst fit.
            let measured = medians[0] / medians[2]
            let predicted = 3 / (1 + sigma * 2 + kappa * 6)
            let worst = fit["largest_error"] as? Double ?? -1
            #expect(worst >= 0 && abs(predicted / measured - 1) <= worst + 1e-9, "\(name): \(fit)")
            // The floor under any fit: no more than this fit's worst, and no less than 0.
            let least = fit["least_possible_error"] as? Double ?? -1
            #expect(least >= 0 && least <= worst + 1e-12, "\(name): \(fit)")
            let peak = fit["peak_workers"]
            #expect(kappa > 0 ? (peak as? Int).map { $0 >= 1 } == true : peak is NSNull, "\(fit)")
        }
        #expect(result.standardOutput.contains("Gunther's law"), "\(result.standardOutput)")
        // The CSV carries the same fits, on every row of the strategy: read them the same way.
        let lines = try String(contentsOfFile: folder + "/s.csv", encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(lines.count == 1 + 3 * 3)
        let header = lines[0]
        let column = { (name: String) in header.firstIndex(of: name) ?? header.count }
        #expect(lines.allSatisfy { $0.count == header.count })
        let columns = [
            "scaling_serial_fraction": "serial_fraction", "scaling_contention": "contention",
            "scaling_coherency": "coherency", "scaling_largest_error": "largest_error",
            "scaling_least_possible_error": "least_possible_error",
        ]
        for line in lines.dropFirst() where line.count == header.count {
            let fit = try #require(fits.first { $0["strategy"] as? String == line[column("strategy")] })
            for (name, key) in columns {
                let json = fit[key] as? Double ?? -1
                let csv = Double(line[column(name)]) ?? .nan
                #expect(json >= 0 && abs(csv - json) <= 1e-12 * max(1, json), "\(key): CSV \(csv), JSON \(json)")
            }
            let peak = line[column("scaling_peak_workers")]
            #expect(peak == ((fit["peak_workers"] as? Int).map(String.init) ?? ""), "\(line)")
            // The law's speedup at the row's workers from the CSV alone, within its own worst fit of the measured.
            let workers = Double(line[column("point_workers")]) ?? 0
            let (sigma, kappa) = (
                Double(line[column("scaling_contention")]) ?? -1,
                Double(line[column("scaling_coherency")]) ?? -1
            )
            let one = lines.dropFirst().first { $0[0] == "1" && $0[column("strategy")] == line[column("strategy")] }
            let measured = (Double(one?[column("median")] ?? "") ?? .nan) / (Double(line[column("median")]) ?? .nan)
            let predicted = workers / (1 + sigma * (workers - 1) + kappa * workers * (workers - 1))
            let worst = Double(line[column("scaling_largest_error")]) ?? -1
            #expect(workers >= 1 && abs(predicted / measured - 1) <= worst + 1e-9, "\(line)")
        }
    }

    @Test("compare --merges: a row per strategy and mechanism, the same pixels, what merging cost in every output")
    func merges() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let merges = ["queue", "mutex", "barrier", "atomic", "private"]
        let result = try MandelProcess.run(
            [
                "compare", "--size", "64x48", "--color", "histogram", "--iterations", "300", "--tile", "16",
                "--strategies", "gcd", "--merges", merges.joined(separator: ","), "--merge-batch", "8",
                "--warmup", "0", "--runs", "2", "--json", "m.json", "--csv", "m.csv",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let names = ["serial", "gcd"].flatMap { strategy in merges.map { "\(strategy)/\($0)" } }
        let object =
            try jsonObject(atPath: folder + "/m.json")
        let rows = object["results"] as! [[String: Any]]
        #expect(rows.map { $0["strategy"] as! String } == names)
        #expect(rows.map { $0["merge"] as! String } == merges + merges)
        #expect(rows.allSatisfy { $0["merge_batch"] as? Int == 8 })
        #expect(rows.allSatisfy { ($0["merge_seconds"] as! Double) > 0 })
        #expect(rows.allSatisfy { $0["merge_wait_seconds"] is Double })
        #expect(Set(rows.map { $0["checksum"] as! String }).count == 1, "every mechanism drew the same pixels")
        let csv = try String(contentsOfFile: folder + "/m.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv[0].hasSuffix(",merge,merge_batch,merge_batches,merge_seconds,merge_wait_seconds,serial_share"))
        #expect(csv.count == 11)
        for name in names { #expect(result.standardOutput.contains("  \(name) "), "no sharing row for \(name)") }
        #expect(result.standardOutput.contains("waiting = ms per run workers spent handing batches over"))
    }

    @Test("compare --order rows,centre: a row per strategy and order, when the central quarter was done")
    func order() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "compare", "--size", "96x64", "--tile", "16", "--strategies", "thread,operation", "--order",
                "rows,centre", "--warmup", "0", "--runs", "2", "--json", "o.json",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let object =
            try jsonObject(atPath: folder + "/o.json")
        let rows = object["results"] as! [[String: Any]]
        #expect(
            rows.map { $0["strategy"] as! String } == [
                "serial/rows", "serial/centre", "thread/rows", "thread/centre", "operation/rows", "operation/centre",
            ])
        #expect(rows.map { $0["order"] as! String } == ["rows", "centre", "rows", "centre", "rows", "centre"])
        for row in rows {
            let centre = try #require(row["centre_done_seconds"] as? Double)
            #expect(centre > 0 && centre <= (row["max"] as! Double))
        }
        #expect(result.standardOutput.contains("centre done = ms until every tile touching"))
    }

    @Test("compare --preview: when each strategy's preview reached the main queue, in the table and the JSON")
    func preview() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "compare", "--size", "96x64", "--preview", "4", "--warmup", "0", "--runs", "2", "--json", "p.json",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let object =
            try jsonObject(atPath: folder + "/p.json")
        for row in object["results"] as! [[String: Any]] {
            let first = try #require(row["first_picture_seconds"] as? Double)
            #expect(first > 0 && first <= (row["max"] as! Double))
        }
        #expect(result.standardOutput.contains("first picture = ms until the preview was delivered on the main queue"))
    }

    @Test("sweep --merge-batch: a point per batch size, a row per mechanism, the sharing cost in a chart")
    func mergeBatchSweep() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "sweep", "--size", "48", "--color", "histogram", "--merge-batch", "1,64", "--merge", "queue,atomic",
                "--strategies", "thread", "--warmup", "0", "--runs", "1", "--json", "s.json", "--chart", "s.svg",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let object =
            try jsonObject(atPath: folder + "/s.json")
        let points = object["points"] as! [[String: Any]]
        #expect(points.map { $0["merge_batch"] as? Int } == [1, 64])
        for (point, batch) in zip(points, [1, 64]) {
            let rows = point["results"] as! [[String: Any]]
            #expect(
                rows.map { $0["strategy"] as! String } == [
                    "serial/queue", "serial/atomic", "thread/queue", "thread/atomic",
                ])
            #expect(rows.allSatisfy { $0["merge_batch"] as? Int == batch })
        }
        // Batches of one value merge every escaped sample alone: many more batches than at 64.
        let batches = points.map { (($0["results"] as! [[String: Any]])[0]["merge_batches"] as! Int) }
        #expect(batches[0] > 32 * batches[1])
        #expect(try seriesCount(inSVG: folder + "/s.svg") == 2, "the baseline's own rows are left out")
        #expect(result.standardOutput.contains("merging + workers handing over"))
    }

    @Test(
        "bad measurement options are refused before anything runs",
        arguments: [
            (["compare", "--strategies", "gcd,fibers"], 64, "fibers"),
            (["compare", "--runs", "0"], 64, "--runs"),
            (["compare", "--json", "missing/x.json"], 73, "does not exist"),
            (["compare", "--csv", "/proc/x.csv"], 73, "does not accept new files"),
            (["compare", "--chart", "/proc/x.svg"], 73, "does not accept new files"),
            (["compare", "--warmup", "-1"], 64, "--warmup"),
            (["sweep", "--workers", "1,2", "--tile", "8,16"], 64, "one axis"),
            (["sweep"], 64, "--workers"),
            (["sweep", "--tile", "8,4096"], 64, "--tile"),
            (["sweep", "--workers", "1,x"], 64, "--workers"),
        ] as [([String], Int32, String)])
    func rejected(arguments: [String], status: Int32, mention: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(arguments + ["--size", "64x48"], in: folder)
        #expect(result.status == status, "\(arguments): \(result.standardError)")
        #expect(result.standardError.split(separator: "\n").first?.contains(mention) == true, "\(result.standardError)")
        #expect(contents(of: folder).isEmpty)
    }

    @Test(
        "compare and sweep keep whole pictures in memory, so they refuse what render would stream",
        arguments: ["compare", "sweep"])
    func tooLargeToKeep(command: String) throws {
        let result = try MandelProcess.run(
            [command, "--size", "20000"] + (command == "sweep" ? ["--workers", "1,2"] : []))
        #expect(result.status == 64)
        let said =
            command == "sweep"
            ? "Error: --size 20000x20000 has 400000000 pixels, 2 pictures of them; mandel sweep keeps each point's "
                + "whole picture in memory: at most 268435456 pixels in all (16384x16384)"
            : "Error: --size 20000x20000 has 400000000 pixels; mandel compare keeps whole pictures in memory: at most "
                + "268435456 (16384x16384)"
        #expect(result.standardError.hasPrefix(said), "\(result.standardError)")
    }

    /// The points' runs are interleaved, so every point's picture is kept to the end: the limit is on their sum.
    @Test(
        "sweep refuses points whose pictures together are too large to keep, though one of them would fit",
        arguments: [["--workers", "1,2,4"], ["--tile", "16,32,64"], ["--tile-wait", "0,1,2"]])
    func pointsTooLargeTogether(axis: [String]) throws {
        // 10000x10000 is 100,000,000 pixels: one fits under 268,435,456, three do not.
        let result = try MandelProcess.run(["sweep", "--size", "10000"] + axis)
        #expect(result.status == 64)
        #expect(
            result.standardError.hasPrefix(
                "Error: --size 10000x10000 has 100000000 pixels, 3 pictures of them; mandel sweep keeps each "
                    + "point's whole picture in memory"), "\(result.standardError)")
    }
}

@Suite("Stress")
struct StressTests {
    @Test(
        "a hundred renders in one process leak neither threads nor memory",
        arguments: StrategyCatalog.concurrent.map(\.name))
    func noLeaks(strategy: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "compare", "--size", "32", "--tile", "8", "--runs", "100", "--warmup", "5", "--strategies", strategy,
                "--json", "leak.json",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let object =
            try jsonObject(atPath: folder + "/leak.json")
        let process = object["process"] as! [String: [String: Int]]
        let before = process["after_warmup"]!
        let after = process["at_end"]!
        // Pools keep a few idle threads a while; a leak would add threads with every run (hundreds here).
        #expect(
            after["threads"]! <= before["threads"]! + 4,
            "threads grew from \(before["threads"]!) to \(after["threads"]!)")
        #expect(
            after["resident_bytes"]! - before["resident_bytes"]! < 4 << 20,
            "memory grew by \(after["resident_bytes"]! - before["resident_bytes"]!) bytes")
    }
}
