import Foundation
import MandelbrotCore
import ProcessTestSupport
import Testing

/// A NumPy file as `--counts` writes it: its header's text and its counts.
struct NumPyCounts {
    let header: String
    let counts: [UInt32]

    init(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.prefix(8) == Data([0x93] + Array("NUMPY".utf8) + [1, 0]))
        let headerLength = Int(data[8]) | Int(data[9]) << 8
        #expect((10 + headerLength) % 64 == 0, "the data starts at a multiple of 64")
        header = String(decoding: data[10..<(10 + headerLength)], as: UTF8.self)
        let body = data.dropFirst(10 + headerLength)
        #expect(body.count % 4 == 0)
        counts = stride(from: body.startIndex, to: body.endIndex, by: 4).map { index in
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(body[index + $1]) << (8 * $1) }
        }
    }
}

@Suite("mandel render: deep zoom and --counts")
struct DeepZoomCommandTests {
    @Test("--counts writes little-endian uint32 of shape (height, width): the Double kernel's counts, the limit inside")
    func countsFile() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "40x30", "--iterations", "100", "--counts", "c.npy", "-o", "p.png"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let file = try NumPyCounts(path: folder + "/c.npy")
        #expect(file.header.hasPrefix("{'descr': '<u4', 'fortran_order': False, 'shape': (30, 40), }"))
        #expect(file.header.hasSuffix("\n"))
        let grid = SampleGrid(size: ImageSize(width: 40, height: 30), viewport: .whole)
        var expected: [UInt32] = []
        for y in 0..<30 {
            for x in 0..<40 {
                expected.append(
                    UInt32(EscapeTime.count(real: grid.realParts[x], imaginary: grid.imaginaryParts[y], limit: 100)))
            }
        }
        #expect(file.counts == expected)
        #expect(file.counts.contains(100) && file.counts.contains(0) == false && file.counts.contains(1))
    }

    @Test("--counts needs the whole picture and one sample per pixel")
    func countsRefusals() throws {
        let banded = try MandelProcess.run(
            ["render", "--size", "40x30", "--band-height", "8", "--counts", "/dev/null", "-o", "/dev/null"])
        #expect(banded.status == 64 && banded.firstErrorLine.contains("--counts need the whole picture"))
        let supersampled = try MandelProcess.run(
            ["render", "--size", "40x30", "--supersample", "2", "--counts", "/dev/null", "-o", "/dev/null"])
        #expect(supersampled.status == 64 && supersampled.firstErrorLine.contains("--supersample takes several"))
    }

    @Test("a zoom past Double switches to perturbation with a note, and the report times the serial parts")
    func automaticSwitch() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "render", "--size", "48x32", "--center", "-1.7685,0.0035", "--zoom", "1e20", "--iterations", "2000",
                "-o", "p.png",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.firstErrorLine.contains("note: ") && result.firstErrorLine.contains("perturbation"))
        #expect(result.standardOutput.contains("| perturbation: orbit "))
        #expect(result.standardOutput.contains(", table ") && result.standardOutput.contains(", pixels "))
        #expect(
            result.standardOutput.contains(" µs each at ") && result.standardOutput.contains(" workers are at most "))
    }

    /// The line's serial parts and pixels are the wall time cut in three, as the JSON's are: a pixels
    /// figure with the table's time in it went unseen (no test read the line's figures against each other).
    @Test("a deep render's line gives an orbit, a table and pixels that add up to its wall time")
    func deepLineAddsUp() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Inside the cardioid: the orbit runs to the limit, and its table of a million steps takes milliseconds.
        let result = try MandelProcess.run(
            [
                "render", "--size", "4", "--center", "-0.1,0.1", "--zoom", "1e20", "--iterations", "1000000",
                "-o", "p.png",
            ], in: folder, deadline: 120)
        #expect(result.status == 0, "\(result.standardError)")
        let line = result.standardOutput
        /// A figure as NumberFormat.seconds prints it, and half its last digit: what rounding it took.
        func reading(_ number: Substring, _ unit: Substring) throws -> (seconds: Double, rounding: Double) {
            let value = try #require(Double(number), "\(number)")
            return unit == "ms" ? (value / 1000, 0.000_005) : (value, 0.000_5)
        }
        let wallText = try #require(line.firstMatch(of: /\| wall ([0-9.]+) (ms|s),/), "\(line)")
        let wall = try reading(wallText.1, wallText.2)
        let orbitText = try #require(line.firstMatch(of: /perturbation: orbit ([0-9.]+) (ms|s) \(/), "\(line)")
        let orbit = try reading(orbitText.1, orbitText.2)
        let rest = try #require(line.firstMatch(of: /, table ([0-9.]+) (ms|s), pixels ([0-9.]+) (ms|s);/), "\(line)")
        let table = try reading(rest.1, rest.2)
        let pixels = try reading(rest.3, rest.4)
        let rounding = wall.rounding + orbit.rounding + table.rounding + pixels.rounding
        try #require(
            table.seconds > 2 * rounding, "a table of \(table.seconds) s cannot be told from rounding: \(line)")
        #expect(orbit.seconds > 0 && pixels.seconds > 0, "\(line)")
        #expect(abs(orbit.seconds + table.seconds + pixels.seconds - wall.seconds) <= rounding, "\(line)")
    }

    @Test("--json gives the precision and, for a deep view, the serial parts' times, their share and its bound")
    func deepJSON() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deep = try MandelProcess.run(
            [
                "render", "--size", "48x32", "--center", "-1.7685,0.0035", "--zoom", "1e20", "--iterations", "2000",
                "--workers", "3", "--json", "-o", "p.png",
            ], in: folder)
        #expect(deep.status == 0, "\(deep.standardError)")
        let fields = try #require(
            try JSONSerialization.jsonObject(with: Data(deep.standardOutput.utf8)) as? [String: Any])
        #expect(fields["precision"] as? String == "perturbation")
        #expect(fields["bla"] as? Bool == true)
        #expect(fields["extended_exponent"] as? Bool == false)
        let wall = try #require(fields["wall_seconds"] as? Double)
        let orbit = try #require(fields["orbit_seconds"] as? Double)
        let table = try #require(fields["table_seconds"] as? Double)
        let pixels = try #require(fields["pixel_seconds"] as? Double)
        #expect(orbit > 0 && table >= 0 && pixels > 0 && orbit + table + pixels <= wall * 1.0001)
        #expect(abs(orbit + table + pixels - wall) < 1e-6 * max(1, wall))
        let steps = try #require(fields["orbit_steps"] as? Int)
        #expect(steps > 0 && steps <= 2000)
        let bits = try #require(fields["precision_bits"] as? Int)
        #expect(bits > 66 && bits < 200)
        let share = try #require(fields["serial_share"] as? Double)
        #expect(share > 0 && share < 1 && abs(share - (orbit + table) / wall) < 1e-9)
        let bound = try #require(fields["two_worker_bound"] as? Double)
        #expect(abs(bound - 1 / (share + (1 - share) / 2)) < 1e-9 && bound >= 1 && bound <= 2)
        let workersBound = try #require(fields["workers_bound"] as? Double)
        #expect(abs(workersBound - 1 / (share + (1 - share) / 3)) < 1e-9 && workersBound >= bound && workersBound <= 3)
        let step = try #require(fields["orbit_step_microseconds"] as? Double)
        #expect(abs(step - orbit * 1e6 / Double(steps)) < 1e-6 * step && step > 0)
        #expect(fields["precision_reason"] as? String == "samples-coincide")
        let exact = try #require(fields["exact_pixels"] as? Int)
        #expect(exact >= 0 && exact <= 48 * 32)
        #expect(fields["uncertain_pixels"] as? Int == 0)

        let shallow = try MandelProcess.run(["render", "--size", "24x16", "--json", "-o", "q.png"], in: folder)
        #expect(shallow.status == 0, "\(shallow.standardError)")
        let plain = try #require(
            try JSONSerialization.jsonObject(with: Data(shallow.standardOutput.utf8)) as? [String: Any])
        #expect(plain["precision"] as? String == "double")
        #expect(plain["precision_reason"] as? String == "shallow")
        for key in [
            "bla", "orbit_seconds", "table_seconds", "pixel_seconds", "serial_share", "two_worker_bound",
            "workers_bound", "orbit_step_microseconds", "exact_pixels",
            "uncertain_pixels",
        ] {
            #expect(plain[key] is NSNull, "\(key)")
        }
    }

    @Test("compare gives each row's serial share at a deep view, and the bound it sets on two workers over one")
    func compareSerialShare() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runs = ["--runs", "3", "--warmup", "0", "--strategies", "serial,gcd", "--json", "c.json"]
        let deep = try MandelProcess.run(
            [
                "compare", "--size", "96x64", "--tile", "32", "--center", "-1.7685,0.0035", "--zoom", "1e20",
                "--iterations", "2000",
            ] + runs, in: folder)
        #expect(deep.status == 0, "\(deep.standardError)")
        let rows = try #require(try jsonObject(atPath: folder + "/c.json")["results"] as? [[String: Any]])
        #expect(rows.count == 2)
        for row in rows {
            let share = try #require(row["serial_share"] as? Double, "\(row["strategy"] ?? "?")")
            #expect(share > 0 && share < 1)
        }
        let serial = try #require(rows.first { $0["strategy"] as? String == "serial" }?["serial_share"] as? Double)
        #expect(
            deep.standardOutput.contains(
                "serial: \(Int((serial * 100).rounded()))% of serial's wall, so 2 workers can be at most "),
            "\(deep.standardOutput)")

        let shallow = try MandelProcess.run(["compare", "--size", "48x32"] + runs, in: folder)
        #expect(shallow.status == 0, "\(shallow.standardError)")
        let plain = try #require(try jsonObject(atPath: folder + "/c.json")["results"] as? [[String: Any]])
        #expect(plain.allSatisfy { $0["serial_share"] is NSNull })
        #expect(!shallow.standardOutput.contains("reference orbit"))
    }

    /// The "1e14" location of Benchmarks/deep-locations.tsv at 32×32, by perturbation, 16 tiles.
    static let location1e14 = [
        "render", "--size", "32x32", "--tile", "8", "--workers", "2", "--precision", "perturbation",
        "--center",
        "-1.759817130804847813610825010561798238243999999999999999999800,"
            + "-0.012593310799749865383746631843264858450340000000000000000000",
        "--zoom", "1.333333333333333333333333333333333333333e14", "--iterations", "4036",
    ]

    /// The helpers receive the parent's reference orbit in their recipe and build their own
    /// table from it: the same file and counts as gcd's, every colouring, with and without the table.
    @Test(
        "process renders a deep view as gcd does: the same PNG and --counts, every colouring, --bla on and off",
        arguments: ["bw", "gray", "smooth", "histogram"])
    func processAtDepth(color: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for bla in ["on", "off"] {
            var reports: [String: [String: Any]] = [:]
            for strategy in ["gcd", "process"] {
                let result = try MandelProcess.run(
                    Self.location1e14 + [
                        "--color", color, "--bla", bla, "--strategy", strategy, "--counts", "\(strategy).npy", "-o",
                        "\(strategy).png", "--json",
                    ], in: folder, deadline: 20)
                #expect(result.status == 0, "\(result.standardError)")
                reports[strategy] =
                    try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            }
            let png = try ["gcd", "process"].map { try Data(contentsOf: URL(fileURLWithPath: folder + "/\($0).png")) }
            let counts = try ["gcd", "process"].map { try NumPyCounts(path: folder + "/\($0).npy").counts }
            #expect(png[0] == png[1], "\(color), --bla \(bla): the PNGs differ")
            #expect(counts[0] == counts[1] && counts[0].count == 32 * 32, "\(color), --bla \(bla): the counts differ")
            // The phases: the orbit the parent computed, the table the helpers built (none without it).
            let process = try #require(reports["process"])
            #expect((process["orbit_seconds"] as? Double ?? 0) > 0, "\(process)")
            #expect(process["orbit_steps"] as? Int == reports["gcd"]?["orbit_steps"] as? Int)
            let table = try #require(process["table_seconds"] as? Double)
            #expect(bla == "on" ? table > 0 : table == 0, "--bla \(bla): table \(table) s")
        }
    }

    /// compare checks every row's pixels against serial's (exit 70 otherwise): process among them.
    @Test("at a deep view, compare's default list includes process, and sweep takes it by name")
    func processListedAtDepth() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deep = ["--size", "96x64", "--tile", "32", "--center", "-1.7685,0.0035", "--zoom", "1e20", "--runs", "1"]
        let all = try MandelProcess.run(["compare"] + deep + ["--warmup", "0", "--json", "c.json"], in: folder)
        #expect(all.status == 0, "\(all.standardError)")
        let rows = try #require(try jsonObject(atPath: folder + "/c.json")["results"] as? [[String: Any]])
        let names = rows.compactMap { $0["strategy"] as? String }
        #expect(names.count == 8 && names.contains("process"), "\(names)")
        let sweep = try MandelProcess.run(
            ["sweep", "--workers", "1,2", "--strategies", "process"] + deep + ["--warmup", "0"], in: folder)
        #expect(sweep.status == 0, "\(sweep.standardError)")
    }

    @Test("zooms and centres of any length are read exactly: 1.333e1086 and 1,100 digits")
    func anyLength() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let digits = String(repeating: "7", count: 1100)
        let result = try MandelProcess.run(
            [
                "render", "--size", "8x8", "--center", "-1.76\(digits),0.0\(digits)", "--zoom", "1.333e1086",
                "--iterations", "500", "--counts", "c.npy", "-o", "p.png",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("extended exponent"))
        #expect(try NumPyCounts(path: folder + "/c.npy").counts.count == 64)
    }

    @Test("--precision double keeps Double with its warning; --julia and --bla are refused where they cannot apply")
    func forcedAndRefused() throws {
        let forced = try MandelProcess.run(
            [
                "render", "--size", "40x30", "--center", "-0.7436,0.1318", "--zoom", "1e15", "--precision", "double",
                "-o", "/dev/null",
            ])
        #expect(forced.status == 0 && forced.firstErrorLine.contains("neighbouring pixels sample the same point"))
        let julia = try MandelProcess.run(
            [
                "render", "--size", "20", "--zoom", "1e20", "--julia", "-0.8,0.156", "--precision", "perturbation",
                "-o", "/dev/null",
            ])
        #expect(julia.status == 64 && julia.firstErrorLine.contains("--julia renders with Double only"))
        let bla = try MandelProcess.run(["render", "--size", "20", "--bla", "off", "-o", "/dev/null"])
        #expect(bla.status == 64 && bla.firstErrorLine.contains("--bla applies to --precision perturbation"))
    }

    @Test("perturbation at a shallow view agrees with the Double kernel")
    func shallowPerturbation() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for precision in ["double", "perturbation"] {
            let result = try MandelProcess.run(
                [
                    "render", "--size", "64x48", "--iterations", "300", "--precision", precision, "--counts",
                    "\(precision).npy", "-o", "\(precision).png",
                ], in: folder)
            #expect(result.status == 0, "\(result.standardError)")
        }
        let double = try NumPyCounts(path: folder + "/double.npy").counts
        let perturbation = try NumPyCounts(path: folder + "/perturbation.npy").counts
        let agreeing = zip(double, perturbation).filter { $0 == $1 }.count
        #expect(Double(agreeing) / Double(double.count) >= 0.995)
    }
}
