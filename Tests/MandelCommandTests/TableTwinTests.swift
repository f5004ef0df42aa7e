import Comparison
import Foundation
import ProcessTestSupport
import RenderModel
import Testing

/// What compare's tables print is what its JSON says, cell by cell, to the printed digit: a figure
/// computed apart for the table (or from the wrong field) is caught, as DocumentedFieldsTests
/// catches a field no test reads. Each test is one run, whose table and JSON describe the same runs.
@Suite("compare's tables say what its JSON says")
struct TableTwinTests {
    /// One aligned table of `output`: the one whose header starts with `strategy` (indented or not)
    /// and names `column`; each row as its cells by header. A table's lines hold two spaces between
    /// columns, its footer's do not. Columns are told apart by those two spaces (a cell holds at most
    /// one space in a row: "395 M", "same within noise", "*0.84 (1.00x)").
    static func table(in output: String, naming column: String) throws -> [[String: String]] {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(
            lines.firstIndex {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("strategy  ") && $0.contains("  \(column)")
            }, "no table with \(column)")
        var block = [lines[start]]
        for line in lines[(start + 1)...] {
            guard line.contains("  ") else { break }
            block.append(line)
        }
        let width = block.map(\.count).max()!
        let padded = block.map { Array($0.padding(toLength: width, withPad: " ", startingAt: 0)) }
        let blank = (0..<width).map { column in padded.allSatisfy { $0[column] == " " } }
        // A column blank in every line and beside another such column separates two cells.
        let separates = (0..<width).map { column in
            blank[column] && ((column > 0 && blank[column - 1]) || (column + 1 < width && blank[column + 1]))
        }
        var spans: [Range<Int>] = []
        var index = 0
        while index < width {
            guard !separates[index] else {
                index += 1
                continue
            }
            var end = index
            while end < width && !separates[end] { end += 1 }
            spans.append(index..<end)
            index = end
        }
        func cells(_ line: [Character]) -> [String] {
            spans.map { String(line[$0]).trimmingCharacters(in: .whitespaces) }
        }
        let header = cells(padded[0])
        // Two columns may share a name ("per batch"): the later one is named with its predecessor.
        var names: [String] = []
        for (position, name) in header.enumerated() {
            names.append(names.contains(name) ? header[position - 1] + " " + name : name)
        }
        return padded.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(names, cells($0))) }
    }

    /// Whether `printed` (a number as the tables print it: "1.51", "588 M", "1.00x", "100%") is
    /// `value` (in the printed unit) within half of its last printed digit; "n/a" is nil.
    static func says(_ printed: String?, _ value: Double?) -> Bool {
        guard let printed else { return false }
        guard let value else { return printed == "n/a" }
        var text = printed
        var scale = 1.0
        for (suffix, factor) in [(" T", 1e12), (" G", 1e9), (" M", 1e6), (" k", 1e3), ("x", 1), ("%", 1)]
        where text.hasSuffix(suffix) {
            text.removeLast(suffix.count)
            scale = factor
        }
        guard let number = Double(text) else { return false }
        let decimals = text.split(separator: ".").dropFirst().first?.count ?? 0
        let halfDigit = 0.5 * pow(10, -Double(decimals)) * scale
        return abs(number * scale - value) <= halfDigit * (1 + 1e-9) + abs(value) * 1e-12
    }

    static func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    /// Runs compare with `arguments`, its JSON to a file; returns its standard output and its results by strategy.
    static func compare(_ arguments: [String]) throws -> (output: String, rows: [String: [String: Any]]) {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["compare", "--warmup", "0", "--runs", "3", "--json", "c.json"] + arguments, in: folder, deadline: 60)
        #expect(result.status == 0, "\(result.standardError)")
        let object = try jsonObject(atPath: folder + "/c.json")
        let results = try #require(object["results"] as? [[String: Any]])
        let rows = Dictionary(uniqueKeysWithValues: results.map { ($0["strategy"] as! String, $0) })
        return (result.standardOutput, rows)
    }

    /// Every cell of `row` named in `figures` says its JSON twin, as `unit` × the JSON's value.
    static func expectCells(
        _ row: [String: String], _ figures: [(column: String, value: Double?)], strategy: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (column, value) in figures {
            #expect(
                says(row[column], value),
                "\(strategy)'s \(column): printed \(row[column] ?? "nothing"), JSON \(value as Any)",
                sourceLocation: sourceLocation)
        }
    }

    @Test("the summary's slower strategies say the verdict column's percentages: +13% for 12.9%, rounded as it is")
    func summarySlower() throws {
        func result(_ name: String, _ seconds: Double) -> StrategyResult {
            StrategyResult(
                strategy: name, wallSeconds: [seconds, seconds, seconds], userSeconds: seconds, systemSeconds: 0,
                workers: name == "serial" ? 1 : 2, threadsUsed: 2, imbalance: 1, checksum: 7, pixels: 1000,
                iterations: 50_000)
        }
        // Three runs each, alike: every interval is its median, so every other row is slower, by
        // 12.9% and 17.1% (a summary that truncated would say +12%).
        let comparison = StrategyComparison(
            baselineName: "serial",
            results: [result("serial", 0.2), result("gcd", 0.1), result("thread", 0.1129), result("tasks", 0.1171)])
        let summary = WorkloadText.summary(of: comparison)
        for result in comparison.results where result.strategy != "gcd" && result.strategy != "serial" {
            let verdict = comparison.verdict(of: result).description
            let percent = try #require(verdict.firstMatch(of: /\(\+(\d+)%\)/)?.1, "\(verdict)")
            #expect(summary.contains("\(result.strategy) +\(percent)%"), "\(summary) against \(verdict)")
        }
        #expect(summary.contains("; slower: thread +13%, tasks +17%."), "\(summary)")
    }

    @Test(
        "the main table: every time, rate, ratio, count, checksum and verdict is its JSON's, and the summary line too")
    func mainTable() throws {
        let (output, json) = try Self.compare([
            "--size", "128x96", "--tile", "32x32", "--heartbeat", "2", "--strategies", "gcd,tasks",
        ])
        let table = try Self.table(in: output, naming: "median")
        #expect(table.count == 3, "\(output)")
        for row in table {
            let marked = row["strategy"]!.hasPrefix("* ")
            let name = String(row["strategy"]!.dropFirst(marked ? 2 : 0))
            let result = try #require(json[name], "no JSON row for \(name)")
            func ms(_ key: String) -> Double? { Self.number(result[key]).map { $0 * 1000 } }
            let mainQueue = result["main_queue"] as? [String: Any] ?? [:]
            Self.expectCells(
                row,
                [
                    ("median", ms("median")), ("min", ms("min")), ("max", ms("max")), ("sd", ms("stddev")),
                    ("cpu", (Self.number(result["user"])! + Self.number(result["system"])!) * 1000),
                    ("speedup", Self.number(result["speedup"])),
                    ("effic.", Self.number(result["efficiency"]).map { $0 * 100 }),
                    ("Mpix/s", Self.number(result["megapixels_per_second"])),
                    ("iter/s", Self.number(result["iterations_per_second"])),
                    ("imbal.", Self.number(result["imbalance"])), ("threads", Self.number(result["threads_used"])),
                    ("main p99", Self.number(mainQueue["p99"]).map { $0 * 1000 }),
                    ("main max", Self.number(mainQueue["max"]).map { $0 * 1000 }),
                ], strategy: name)
            let interval = try #require(result["median_ci"] as? [Double])
            let ends = row["95% CI of median"]!.split(separator: "–").map(String.init)
            #expect(
                ends.count == 2 && Self.says(ends[0], interval[0] * 1000) && Self.says(ends[1], interval[1] * 1000),
                "\(name)'s interval \(row["95% CI of median"]!) against \(interval)")
            #expect((result["checksum"] as? String)?.hasPrefix(row["checksum"]!) == true && row["checksum"]!.count == 8)
            #expect(row["verdict"] == result["verdict"] as? String)
            #expect(marked == (result["verdict"] as? String == "fastest"), "\(name): marked \(marked)")
        }
        // "gcd is fastest at 1.23 ms median, 1.40x serial; ...": the fastest and its figures.
        let summary = try #require(output.split(separator: "\n").last.map(String.init))
        let fastest = try #require(json.first { $0.value["verdict"] as? String == "fastest" })
        let match = try #require(
            summary.firstMatch(of: /^(\S+) is fastest at (\S+) ms median, (\S+)x serial/), "\(summary)")
        #expect(String(match.1) == fastest.key)
        #expect(Self.says(String(match.2), Self.number(fastest.value["median"])! * 1000), "\(summary)")
        #expect(Self.says(String(match.3), Self.number(fastest.value["speedup"])), "\(summary)")
    }

    @Test("the behaviour table after --cancel-after: threads, memory, frames and how each stopped, as the JSON says")
    func behaviourTable() throws {
        let (output, json) = try Self.compare([
            "--size", "256x192", "--tile", "16x16", "--heartbeat", "2", "--cancel-after", "1", "--strategies",
            "thread,gcd",
        ])
        let table = try Self.table(in: output, naming: "peak threads")
        #expect(table.count == 3, "\(output)")
        for row in table {
            let name = row["strategy"]!
            let result = try #require(json[name], "no JSON row for \(name)")
            let mainQueue = result["main_queue"] as? [String: Any] ?? [:]
            Self.expectCells(
                row,
                [
                    ("peak threads", Self.number(result["peak_threads"])),
                    ("peak MiB", Self.number(result["peak_resident_bytes"]).map { ($0 / 1_048_576).rounded(.down) }),
                    ("missed frames", Self.number(mainQueue["missed_frames"])),
                    ("cancel latency", Self.number(result["cancel_latency"]).map { $0 * 1000 }),
                    ("tiles after", Self.number(result["tiles_after_cancel"])),
                    ("cpu after", Self.number(result["cpu_after_cancel"]).map { $0 * 1000 }),
                    ("running after", Self.number(result["threads_running_after_cancel"])),
                ], strategy: name)
        }
    }

    @Test("a cancelled comparison's rates count the finished tiles, not the whole picture it never drew")
    func cancelledRates() throws {
        // 200,000 iterations: the whole picture takes seconds; the cancel comes after 1 ms. (At 20,000, a few
        // hundred milliseconds, two whole suites at once delayed the cancel past the picture's end.)
        let (output, json) = try Self.compare([
            "--size", "256x192", "--tile", "16x16", "--iterations", "200000", "--cancel-after", "1", "--strategies",
            "gcd",
        ])
        #expect(json.count == 2, "\(output)")
        for (name, result) in json {
            let median = Self.number(result["median"])!
            let pixels = Self.number(result["megapixels_per_second"])! * 1e6 * median
            let iterations = Self.number(result["iterations_per_second"])! * median
            // Whole tiles of 256 pixels, fewer than the picture's 49,152, each at most 200,000 iterations deep
            // (a pixel the cardioid's shortcut settles costs none).
            #expect((pixels / 256 - (pixels / 256).rounded()).magnitude < 1e-6, "\(name): \(pixels) pixels")
            #expect(pixels < 49152 && pixels >= 0, "\(name): \(pixels) pixels finished of 49,152, cancelled after 1 ms")
            #expect(
                iterations <= pixels * 200_000 && iterations >= 0 && (iterations > 0) == (pixels > 0),
                "\(name): \(iterations) iterations in \(pixels) pixels")
        }
    }

    @Test("sweep's tables: each point's median, speedup and fastest, and each fit, as its JSON says")
    func sweepTables() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "sweep", "--size", "128x96", "--tile", "32x32", "--workers", "1,2,3", "--warmup", "0", "--runs", "3",
                "--strategies", "gcd,pthread", "--json", "s.json",
            ], in: folder, deadline: 60)
        #expect(result.status == 0, "\(result.standardError)")
        let object = try jsonObject(atPath: folder + "/s.json")
        let points = try #require(object["points"] as? [[String: Any]])
        #expect(points.map { $0["workers"] as? Int } == [1, 2, 3])
        let times = try Self.table(in: result.standardOutput, naming: "1 workers")
        #expect(times.count == 3, "\(result.standardOutput)")
        for row in times {
            let name = row["strategy"]!
            for point in points {
                let workers = point["workers"] as! Int
                let results = try #require(point["results"] as? [[String: Any]])
                let twin = try #require(results.first { $0["strategy"] as? String == name })
                // "*0.84 (1.00x)": fastest, median ms, speedup.
                let cell = try #require(row["\(workers) workers"])
                let match = try #require(cell.wholeMatch(of: /(\*?)(\S+) \((\S+)\)/), "\(name) at \(workers): \(cell)")
                #expect(
                    Self.says(String(match.2), Self.number(twin["median"])! * 1000), "\(name) at \(workers): \(cell)")
                #expect(Self.says(String(match.3), Self.number(twin["speedup"])), "\(name) at \(workers): \(cell)")
                #expect((match.1 == "*") == (twin["verdict"] as? String == "fastest"), "\(name) at \(workers): \(cell)")
            }
        }
        let scaling = try #require(object["scaling"] as? [[String: Any]])
        let fits = try Self.table(in: result.standardOutput, naming: "Amdahl s")
        #expect(fits.count == 3)
        for row in fits {
            let name = row["strategy"]!
            let fit = try #require(scaling.first { $0["strategy"] as? String == name })
            Self.expectCells(
                row,
                [
                    ("Amdahl s", Self.number(fit["serial_fraction"])), ("sigma", Self.number(fit["contention"])),
                    ("kappa", Self.number(fit["coherency"])),
                    ("worst fit", Self.number(fit["largest_error"]).map { $0 * 100 }),
                    ("best possible", Self.number(fit["least_possible_error"]).map { $0 * 100 }),
                ], strategy: name)
            let peak = Self.number(fit["peak_workers"])
            #expect(row["peak at"] == (peak.map { "\(Int($0)) workers" } ?? "none"), "\(name): \(row["peak at"] ?? "")")
        }
    }

    @Test("the scaling table of a fit that peaks: every figure its export's, where s, sigma and kappa all differ")
    func scalingTableOfAPeak() throws {
        // Speedups 1.8, 2.6, 2.4 at 2, 4, 8 workers: contention and coherency both, a peak near 5 workers.
        let model = try #require(
            ScalingModel(times: [(1, 8.0), (2, 8.0 / 1.8), (4, 8.0 / 2.6), (8, 8.0 / 2.4)]))
        let export = try #require(ScalingModel.export([("gcd", model)]).first)
        #expect(export.coherency > 0 && export.contention != export.serialFraction && export.peakWorkers != nil)
        let row = try #require(Self.table(in: ScalingModel.table([("gcd", model)]), naming: "Amdahl s").first)
        Self.expectCells(
            row,
            [
                ("Amdahl s", export.serialFraction), ("sigma", export.contention), ("kappa", export.coherency),
                ("worst fit", export.largestError * 100), ("best possible", export.leastPossibleError * 100),
            ], strategy: "gcd")
        #expect(row["peak at"] == "\(export.peakWorkers!) workers")
    }

    @Test("the order and sharing tables: when the centre and the preview came, and what merging cost, as the JSON says")
    func orderAndSharingTables() throws {
        let (orderOutput, orderJSON) = try Self.compare([
            "--size", "128x96", "--tile", "16x16", "--order", "rows,centre", "--preview", "8", "--strategies", "gcd",
        ])
        let order = try Self.table(in: orderOutput, naming: "centre done")
        #expect(order.count == 4, "\(orderOutput)")
        for row in order {
            let name = row["strategy"]!
            let result = try #require(orderJSON[name], "no JSON row for \(name)")
            let total = Self.number(result["median"])!
            let centre = Self.number(result["centre_done_seconds"])!
            let first = Self.number(result["first_picture_seconds"])!
            #expect(row["order"] == result["order"] as? String)
            Self.expectCells(
                row,
                [
                    ("centre done", centre * 1000), ("total", total * 1000), ("centre / total", centre / total),
                    ("first picture", first * 1000), ("first / total", first / total),
                ], strategy: name)
        }
        let (sharingOutput, sharingJSON) = try Self.compare([
            "--size", "128x96", "--tile", "32x32", "--color", "histogram", "--merges", "mutex,queue", "--merge-batch",
            "4096", "--strategies", "gcd",
        ])
        let sharing = try Self.table(in: sharingOutput, naming: "merging")
        #expect(sharing.count == 4, "\(sharingOutput)")
        for row in sharing {
            let name = row["strategy"]!
            let result = try #require(sharingJSON[name], "no JSON row for \(name)")
            let batches = Self.number(result["merge_batches"])!
            let merging = Self.number(result["merge_seconds"])!
            let waiting = Self.number(result["merge_wait_seconds"])!
            #expect(batches > 0)
            #expect(row["merge"] == result["merge"] as? String)
            Self.expectCells(
                row,
                [
                    ("batch", Self.number(result["merge_batch"])), ("batches", batches), ("merging", merging * 1000),
                    ("per batch", merging / batches * 1e6), ("waiting", waiting * 1000),
                    ("waiting per batch", waiting / batches * 1e6),
                ], strategy: name)
        }
    }
}
