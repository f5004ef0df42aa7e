import Foundation
import ProcessTestSupport
import Testing

/// render's line against its JSON twin. The two come from two runs (one process prints one of them),
/// so the line's times are checked against each other and against the counts both runs share: the
/// picture, the iterations, the bands, the orbit's steps, the histogram's batches. A figure the
/// line computes apart, or takes from the wrong field, is caught here.
@Suite("render's line says what its JSON says")
struct RenderLineTwinTests {
    /// The line and the JSON of the same render.
    static func twins(_ arguments: [String]) throws -> (line: String, json: [String: Any]) {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plain = try MandelProcess.run(["render", "-o", "a.png"] + arguments, in: folder)
        #expect(plain.status == 0, "\(plain.standardError)")
        let line = try #require(plain.standardOutput.split(separator: "\n").last.map(String.init))
        let json = try MandelProcess.run(["render", "-o", "b.png", "--json"] + arguments, in: folder)
        #expect(json.status == 0, "\(json.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        return (line, object)
    }

    /// Seconds as NumberFormat.seconds prints them: "0.97 ms" or "1.234 s", with half their last digit.
    static func seconds(_ text: Substring) -> (value: Double, halfDigit: Double)? {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let number = Double(parts[0]) else { return nil }
        let decimals = Double(parts[0].split(separator: ".").dropFirst().first?.count ?? 0)
        let scale = parts[1] == "ms" ? 1e-3 : parts[1] == "s" ? 1 : .nan
        return (number * scale, 0.5 * pow(10, -decimals) * scale)
    }

    /// A rate as the line prints it ("31.0 Mpixel/s", "1.12 G iterations/s"), with half its last digit.
    static func rate(_ number: Substring, prefix: Substring) -> (value: Double, halfDigit: Double) {
        let scale = ["": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12][String(prefix)]!
        let decimals = Double(number.split(separator: ".").dropFirst().first?.count ?? 0)
        return (Double(number)! * scale, 0.5 * pow(10, -decimals) * scale)
    }

    /// Whether `a × b` (each printed, with half its last digit) can be `product`.
    static func productHolds(
        _ a: (value: Double, halfDigit: Double), _ b: (value: Double, halfDigit: Double), _ product: Double
    ) -> Bool {
        let low = (a.value - a.halfDigit) * (b.value - b.halfDigit)
        let high = (a.value + a.halfDigit) * (b.value + b.halfDigit)
        return low <= product * (1 + 1e-9) && product <= high * (1 + 1e-9)
    }

    /// The line's head and rates: the picture, iterations and workers as the JSON's; the rates its
    /// counts over the line's own wall time.
    static func expectHead(
        _ line: String, _ json: [String: Any], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let head = try #require(
            line.firstMatch(
                of:
                    /^(\w+): (\d+)x(\d+), (\d+) iterations, (\d+) workers? \(([^)]*)\) \| wall ([^,]+), cpu ([^,]+), ([\d.]+) Mpixel\/s, ([\d.]+) (\w?) ?iterations\/s \| png ([^|(]+?)(?: \(| \||$| ->)/
            ), "\(line)", sourceLocation: sourceLocation)
        #expect(String(head.1) == json["strategy"] as? String, sourceLocation: sourceLocation)
        let width = Int(head.2)!
        let height = Int(head.3)!
        #expect(width == json["width"] as? Int && height == json["height"] as? Int, sourceLocation: sourceLocation)
        #expect(Int(head.4) == json["iterations"] as? Int, sourceLocation: sourceLocation)
        #expect(Int(head.5) == json["workers"] as? Int, sourceLocation: sourceLocation)
        #expect(
            head.6.contains(json["tile"] as? String ?? "?") || json["split"] as? String != "tiles",
            "\(head.6)", sourceLocation: sourceLocation)
        let wall = try #require(seconds(head.7), sourceLocation: sourceLocation)
        let cpu = try #require(seconds(head.8), sourceLocation: sourceLocation)
        #expect(cpu.value >= 0 && wall.value > 0, sourceLocation: sourceLocation)
        #expect(seconds(head.12) != nil, "png time \(head.12)", sourceLocation: sourceLocation)
        // Mpixel/s × wall is the picture; iterations/s × wall the JSON's iterations (the same in both runs).
        let megapixels = rate(head.9, prefix: "M")
        #expect(
            productHolds(megapixels, wall, Double(width * height)), "\(head.9) Mpixel/s over \(head.7)",
            sourceLocation: sourceLocation)
        let iterations = try #require(json["total_iterations"] as? Int, sourceLocation: sourceLocation)
        #expect(
            productHolds(rate(head.10, prefix: head.11), wall, Double(iterations)),
            "\(head.10) \(head.11) iterations/s over \(head.7), \(iterations) iterations",
            sourceLocation: sourceLocation)
    }

    @Test(
        "a render centre first: picture, iterations, workers, tiles, rates that are the counts over the wall time, the centre within it"
    )
    func plain() throws {
        let (line, json) = try Self.twins([
            "--size", "200x150", "--iterations", "500", "--heartbeat", "2", "--order", "centre",
        ])
        try Self.expectHead(line, json)
        let queue = try #require(line.firstMatch(of: /main queue late p99 ([^,]+), max ([^,]+), (\d+) missed frames?/))
        let p99 = try #require(Self.seconds(queue.1))
        let max = try #require(Self.seconds(queue.2))
        #expect(p99.value <= max.value + max.halfDigit, "\(line)")
        #expect(line.hasSuffix(" -> a.png"))
        let wall = try #require(line.firstMatch(of: /\| wall ([^,]+),/).flatMap { Self.seconds($0.1) })
        let centre = try #require(
            line.firstMatch(of: /centre first: central quarter done at (.+?)(?: \||$| ->)/).flatMap {
                Self.seconds($0.1)
            },
            "\(line)")
        #expect(centre.value > 0 && centre.value <= wall.value + wall.halfDigit + centre.halfDigit, "\(line)")
    }

    @Test("a banded render: its bands, their rows and its peak memory as the JSON's")
    func bands() throws {
        let (line, json) = try Self.twins(["--size", "200x150", "--band-height", "40"])
        try Self.expectHead(line, json)
        let bands = try #require(
            line.firstMatch(of: /\((\d+) bands? of (\d+) rows, written while rendering; peak (\d+) MiB resident\)/),
            "\(line)")
        #expect(Int(bands.1) == json["bands"] as? Int && Int(bands.1) == 4)
        #expect(Int(bands.2) == json["band_rows"] as? Int && Int(bands.2) == 40)
        let resident = try #require(json["peak_resident_bytes"] as? Int)
        // Two processes: the same program on the same picture, within a fifth or 8 MiB of each other (more
        // under AddressSanitizer, whose shadow memory counts).
        let slack = max(8, (resident >> 20) / 5)
        #expect(abs(Int(bands.3)! - resident >> 20) <= slack, "\(bands.3) MiB against \(resident >> 20)")
    }

    @Test("histogram colouring: the merge, its batch and batches as the JSON's")
    func merge() throws {
        let (line, json) = try Self.twins([
            "--size", "200x150", "--color", "histogram", "--merge", "mutex", "--merge-batch", "1000",
        ])
        try Self.expectHead(line, json)
        let merge = try #require(
            line.firstMatch(
                of: /merge (\w+), batch (\d+): (\d+) batch(?:es)?, merging ([^,]+), waiting (.+?)(?: \||$| ->)/),
            "\(line)")
        #expect(String(merge.1) == json["merge"] as? String)
        #expect(Int(merge.2) == json["merge_batch"] as? Int && Int(merge.2) == 1000)
        // 30,000 values in batches of 1,000 at most: at least 30, whatever the workers' split.
        #expect(Int(merge.3) == json["merge_batches"] as? Int && Int(merge.3)! >= 30, "\(line)")
        #expect(Self.seconds(merge.4) != nil && Self.seconds(merge.5) != nil, "\(line)")
    }

    @Test(
        "a deep view: the orbit's steps and bits as the JSON's, each step its share, and the serial bound from the line's own times",
        arguments: [[], ["--workers", "1"]])
    func deep(workerOption: [String]) throws {
        let (line, json) = try Self.twins(
            [
                "--size", "200x150", "--zoom", "1e20", "--center", "-1.7499,0.0000001", "--iterations", "3000",
            ] + workerOption)
        try Self.expectHead(line, json)
        let deep = try #require(
            line.firstMatch(
                of:
                    /perturbation: orbit (.+?) \((\d+) steps, ([\d.]+) µs each at (\d+) bits\), table (.+?), pixels (.+?); serial (\d+)%, so (\d+) (workers are|worker is) at most ([\d.]+)x one/
            ), "\(line)")
        #expect(Int(deep.2) == json["orbit_steps"] as? Int, "\(line)")
        #expect(Int(deep.4) == json["precision_bits"] as? Int, "\(line)")
        let orbit = try #require(Self.seconds(deep.1))
        let table = try #require(Self.seconds(deep.5))
        let pixels = try #require(Self.seconds(deep.6))
        let wall = try #require(line.firstMatch(of: /\| wall ([^,]+),/).flatMap { Self.seconds($0.1) })
        // Each step is the orbit's time over its steps.
        let step = Self.rate(deep.3, prefix: "")
        #expect(
            Self.productHolds((step.value * 1e-6, step.halfDigit * 1e-6), (Double(deep.2)!, 0), orbit.value)
                || abs(step.value * 1e-6 * Double(deep.2)! - orbit.value) <= orbit.halfDigit, "\(line)")
        // The serial share is the orbit and table over the wall, and the bound Amdahl's for the workers.
        let serial = (orbit.value + table.value) / wall.value
        let slack = (orbit.halfDigit + table.halfDigit) / wall.value + serial * wall.halfDigit / wall.value
        #expect(abs(Double(deep.7)! / 100 - serial) <= 0.005 + slack, "serial \(deep.7)% against \(serial)")
        #expect(Int(deep.8) == json["workers"] as? Int)
        #expect(deep.9 == (deep.8 == "1" ? "worker is" : "workers are"), "\(line)")
        #expect((deep.8 == "1") == !workerOption.isEmpty, "\(line)")
        let share = Double(deep.7)! / 100
        let workers = Double(deep.8)!
        let bound = 1 / (share + (1 - share) / workers)
        // The bound is printed from the unrounded share: within what the share's rounding moves it.
        let moved = abs(1 / (share + 0.005 + (1 - share - 0.005) / workers) - bound) + 0.05
        #expect(abs(Double(deep.10)! - bound) <= moved, "at most \(deep.10)x against \(bound)")
        #expect(pixels.value >= 0)
    }
}
