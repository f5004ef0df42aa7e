import Foundation
import ImageFiles
import ProcessTestSupport
import Testing

/// One orbit for a whole zoom: `--frames N` renders every frame in one run, each the same file as
/// its own `--frame K/N` render, and `--orbit-out` / `--orbit` carry the orbit between tasks, a
/// file that does not fit being refused with one line, never used.
@Suite("One orbit for every frame of a zoom, and orbit files")
struct ZoomOrbitTests {
    /// The seahorse valley from 10³ (Double) to 10¹² (perturbation), 5 frames.
    static let zoom = [
        "render", "--center", "-0.743643887037158704752191506114774,0.131825904205311970493132056385139",
        "--size", "72x48", "--iterations", "1500", "--color", "smooth", "--zoom", "1e3", "--zoom-to", "1e12",
    ]

    static func bytes(_ folder: String, _ name: String) -> Data? {
        FileManager.default.contents(atPath: folder + "/" + name)
    }

    /// The JSON lines of a run's standard output, one object per frame.
    static func reports(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test(
        "every frame of one run is the same file as its own --frame K/N render; the orbit is computed once",
        arguments: [["--zoom", "1e3", "--zoom-to", "1e9"], ["--zoom", "1e9", "--zoom-to", "1e3"]])
    func everyFrameMatchesItsOwnRender(ends: [String]) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let all = try MandelProcess.run(Self.zoom + ends + ["--frames", "5", "--json", "-o", "f-%03d.png"], in: folder)
        #expect(all.status == 0, "\(all.standardError)")
        let reports = try Self.reports(all.standardOutput)
        #expect(reports.count == 5, "\(all.standardOutput)")
        // How a deep view is computed is said once, for the first deep frame, not for every one.
        #expect(all.standardError.components(separatedBy: "note: ").count == 2, "\(all.standardError)")
        #expect(reports.map { $0["frame"] as? [Int] } == (0..<5).map { [$0, 5] })
        // The frames rendered by perturbation (zoom 10⁶ and deeper: three of five) share one orbit,
        // with the deepest frame's precision; only the first of them computes it.
        let deep = reports.filter { $0["precision"] as? String == "perturbation" }
        #expect(deep.count == 3, "\(reports.map { $0["precision"] ?? "?" })")
        #expect(Set(deep.compactMap { $0["precision_bits"] as? Int }).count == 1)
        #expect(deep.filter { ($0["orbit_seconds"] as? Double ?? 0) > 0 }.count == 1)
        // Pictures with something to compare: no deep frame is all inside the set (at 10¹² this
        // centre is, at 1,500 iterations, and two black frames are the same file whatever the orbit).
        for report in deep {
            let everyPixelInside = 72 * 48 * 1500
            #expect((report["total_iterations"] as? Int ?? everyPixelInside) < everyPixelInside * 9 / 10, "\(report)")
        }
        #expect(
            deep.filter { $0["orbit_step_microseconds"] is Double }.count == 1, "the frames after it took the orbit")
        for index in 0..<5 {
            let name = String(format: "f-%03d.png", index)
            let alone = try MandelProcess.run(
                Self.zoom + ends + ["--frame", "\(index)/5", "--json", "-o", "alone-\(index).png"], in: folder)
            #expect(alone.status == 0, "\(alone.standardError)")
            // Alone, a frame computes the zoom's orbit, with the deepest frame's precision, as the run of all does.
            let report = try #require(try Self.reports(alone.standardOutput).first)
            #expect(report["precision_bits"] as? Int == reports[index]["precision_bits"] as? Int, "frame \(index)")
            let frame = try #require(Self.bytes(folder, name), "\(name) was not written")
            #expect(frame == Self.bytes(folder, "alone-\(index).png"), "frame \(index) differs from --frame \(index)/5")
        }
    }

    @Test("--frame K/N fills -o's frame number, as every frame's run does")
    func frameNumberInTheName() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(Self.zoom + ["--frame", "3/5", "-o", "z%%-%4d.png"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(Self.bytes(folder, "z%-   3.png") != nil, "\(names)")
    }

    @Test("a frame or the zoom's every frame from --orbit is the same file as one that computed its orbit")
    func orbitFileRoundTrips() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let writer = try MandelProcess.run(
            Self.zoom + ["--frame", "4/5", "--orbit-out", "zoom.orbit", "-o", "last.png"], in: folder)
        #expect(writer.status == 0, "\(writer.standardError)")
        #expect(Self.bytes(folder, "zoom.orbit") != nil)
        let computed = try MandelProcess.run(Self.zoom + ["--frames", "5", "-o", "c-%d.png"], in: folder)
        #expect(computed.status == 0, "\(computed.standardError)")
        let read = try MandelProcess.run(
            Self.zoom + ["--frames", "5", "--orbit", "zoom.orbit", "--json", "-o", "r-%d.png"], in: folder)
        #expect(read.status == 0, "\(read.standardError)")
        for report in try Self.reports(read.standardOutput) where report["precision"] as? String == "perturbation" {
            #expect(report["orbit_seconds"] as? Double == 0, "an orbit read from a file takes no time to compute")
        }
        for index in 0..<5 {
            #expect(Self.bytes(folder, "r-\(index).png") == Self.bytes(folder, "c-\(index).png"), "frame \(index)")
        }
        #expect(Self.bytes(folder, "last.png") == Self.bytes(folder, "c-4.png"))
        // A part of the deepest frame's view reads it too, with no zoom sequence (the same precision).
        let part = try MandelProcess.run(
            Self.zoom.dropLast(4) + ["--zoom", "1e12", "--orbit", "zoom.orbit", "--part", "0/2", "-o", "p0.part"],
            in: folder)
        #expect(part.status == 0, "\(part.standardError)")
    }

    /// A view whose orbit ends one way: the options that give it, and the period and steps it ends with.
    struct OrbitEnd: Sendable, CustomTestStringConvertible {
        let options: [String]
        let period: Int?
        let steps: Int
        var testDescription: String { options.joined(separator: " ") }
    }

    /// The minibrot of period 252 of OrbitPeriodTests, its nucleus at the centre.
    static let minibrot = [
        "--center", "\(OrbitPeriodTests.minibrot.real),\(OrbitPeriodTests.minibrot.imaginary)", "--zoom",
        OrbitPeriodTests.minibrot.zoom, "--iterations", "\(OrbitPeriodTests.minibrot.iterations)",
    ]

    /// Every way an orbit ends: at the period of a nucleus in the view (the minibrot), at its
    /// escape, or at the limit with no nucleus found, each looking for a period; and computed with
    /// --period off, to the limit.
    static let orbitEnds = [
        OrbitEnd(options: minibrot, period: 252, steps: 252),
        OrbitEnd(options: ["--center", "2,0", "--zoom", "1e20", "--iterations", "3000"], period: nil, steps: 2),
        OrbitEnd(options: ["--center=-0.1,0.1", "--zoom", "1e20", "--iterations", "3000"], period: nil, steps: 3000),
        OrbitEnd(options: minibrot + ["--period", "off"], period: nil, steps: 20000),
    ]

    /// The file records whether the orbit looked for a period apart from whether it found one: an
    /// orbit that looked and escaped, or reached the limit, is read back by the same render.
    @Test(
        "an orbit file is read back however its orbit ended: its period, its escape, the limit, --period off",
        arguments: orbitEnds)
    func orbitFileOfEveryEnd(end: OrbitEnd) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let render = ["render", "--size", "24x16", "--json"] + end.options
        let written = try MandelProcess.run(render + ["--orbit-out", "o.orbit", "-o", "w.png"], in: folder)
        #expect(written.status == 0, "\(written.standardError)")
        let read = try MandelProcess.run(render + ["--orbit", "o.orbit", "-o", "r.png"], in: folder)
        #expect(read.status == 0, "\(read.standardError)")
        for (name, result) in [("written", written), ("read", read)] {
            let report = try #require(
                try Self.reports(result.standardOutput).first, "\(name): \(result.standardOutput)")
            #expect(report["orbit_period"] as? Int == end.period, "\(name): \(report["orbit_period"] ?? "none")")
            #expect(report["orbit_steps"] as? Int == end.steps, "\(name): \(report["orbit_steps"] ?? "none")")
            if name == "read" { #expect(report["orbit_seconds"] as? Double == 0, "an orbit read takes no time") }
        }
        let picture = Self.bytes(folder, "r.png")
        #expect(picture != nil && picture == Self.bytes(folder, "w.png"), "the picture from the file differs")
    }

    /// A frame's memory check counts the zoom's orbit beside the frame's own copy of it. With --period
    /// off the orbit, still to compute, is 16 bytes a step to the limit: the frame's refusal (10⁹
    /// steps, 4 GB of address space) says 16·(10⁹ + 1) bytes, 14.9 GiB, more than the same view's
    /// outside a zoom, each given to a tenth of a GiB.
    @Test("a frame's memory check counts the zoom's shared orbit beside its own copy")
    func sharedOrbitCounted() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let view = [
            "render", "--center=-0.1,0.1", "--zoom", "1e20", "--size", "16", "--iterations", "1000000000", "--period",
            "off", "-o", "p.png",
        ]
        let launch = MandelProcess.Launch(shellSetup: "ulimit -v 4000000")
        func needed(_ arguments: [String]) throws -> Double {
            let result = try MandelProcess.run(arguments, in: folder, launch: launch, deadline: 60)
            #expect(result.status == 71, "\(arguments): \(result.standardError)")
            let words = result.standardError.split(separator: " ")
            let index = try #require(
                words.firstIndex(of: "needs").flatMap { $0 + 2 < words.count ? $0 : nil }, "\(result.standardError)")
            #expect(words[index + 2] == "GiB,", "\(result.standardError)")
            return try #require(Double(words[index + 1]), "\(result.standardError)")
        }
        let alone = try needed(view)
        let frame = try needed(view + ["--frame", "1/2", "--zoom-to", "1e20"])
        let orbit = 16 * (1e9 + 1) / Double(1 << 30)
        #expect(abs(frame - alone - orbit) <= 0.1 + 1e-9, "frame \(frame) GiB, alone \(alone) GiB")
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
    }

    /// Centres of many digits are named by their first 60 and where they first differ: two centres
    /// alike in their first 69 characters would read the same in the refusal otherwise.
    @Test("an orbit file of a long centre that differs late is refused naming the character they differ from")
    func longCentreMisfit() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let real = "-0.743643887037158704752191506114774999999999999999999999999999999999"
        let written = real + "9,0.1318259042053119704931320561385"
        let asked = real + "8,0.1318259042053119704931320561385"
        let view = ["render", "--zoom", "1e30", "--size", "32", "--iterations", "2000"]
        let writer = try MandelProcess.run(
            view + ["--center", written, "--orbit-out", "long.orbit", "-o", "a.png"], in: folder)
        #expect(writer.status == 0, "\(writer.standardError)")
        try FileManager.default.removeItem(atPath: folder + "/a.png")
        let reader = try MandelProcess.run(
            view + ["--center", asked, "--orbit", "long.orbit", "-o", "b.png"], in: folder)
        let differing = real.count + 1
        expectRefusal(
            reader, status: 65,
            mentioning:
                "it is the orbit of --center \(written.prefix(60))…, not \(asked.prefix(60))… (they differ from "
                + "character \(differing) on)")
        #expect(contents(of: folder) == ["long.orbit"])
    }

    /// A file that is not the orbit this render would compute, whatever is wrong with it: refused
    /// with one line naming the file and what does not fit, exit 65 (66 where it cannot be read),
    /// and no picture written.
    @Test("an orbit file that does not fit is refused with one line, never used")
    func misfitsAreRefused() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let writer = try MandelProcess.run(
            Self.zoom + ["--frame", "4/5", "--orbit-out", "good.orbit", "-o", "last.png"], in: folder)
        #expect(writer.status == 0, "\(writer.standardError)")
        let good = try #require(Self.bytes(folder, "good.orbit"))
        /// `good` with its body edited by `edit` and its checksum made to hold again.
        func forged(_ edit: (inout [UInt8]) -> Void) -> Data {
            var bytes = [UInt8](good.dropLast(4))
            edit(&bytes)
            let crc = bytes.withUnsafeBytes { Checksum.crc32($0) }
            return Data(bytes + withUnsafeBytes(of: crc.littleEndian) { Array($0) })
        }
        // The body's fields: 15 bytes of magic, then the centre's real text (a UInt32 count).
        let realCount = Int(good[15]) | Int(good[16]) << 8
        let imaginaryAt = 15 + 4 + realCount
        let imaginaryCount = Int(good[imaginaryAt]) | Int(good[imaginaryAt + 1]) << 8
        let bitsAt = imaginaryAt + 4 + imaginaryCount
        let limitAt = bitsAt + 4
        let lengthAt = limitAt + 8
        let periodFlagAt = lengthAt + 8
        let periodAt = periodFlagAt + 1
        let tinyAt = periodAt + 8
        func setWord(_ bytes: inout [UInt8], at offset: Int, _ value: UInt64, size: Int = 8) {
            for index in 0..<size { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
        }
        /// Lists `steps` as small steps (Z below 2^-960, which this orbit has none of), before any it has.
        func smallSteps(_ bytes: inout [UInt8], _ steps: [UInt64]) {
            let had = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[tinyAt + $1]) << (8 * UInt64($1)) }
            setWord(&bytes, at: tinyAt, had + UInt64(steps.count))
            var entries = HelperWire.Bytes()
            for step in steps {
                entries.u64(step)
                entries.f64(0.5)
                entries.f64(0.5)
                entries.u64(UInt64(bitPattern: -1000))
            }
            bytes.insert(contentsOf: entries.data, at: tinyAt + 8)
        }
        let files: [(name: String, contents: Data?, status: Int32, says: String)] = [
            ("missing.orbit", nil, 66, "No such file"),
            ("empty.orbit", Data(), 65, "too few for an orbit file"),
            ("short.orbit", good.prefix(good.count / 2), 65, "checksum does not hold"),
            (
                "flipped.orbit",
                Data(good.enumerated().map { $0.offset == good.count - 100 ? $0.element ^ 1 : $0.element }), 65,
                "checksum does not hold"
            ),
            ("png.orbit", Self.bytes(folder, "last.png"), 65, "not an orbit file"),
            ("bits.orbit", forged { setWord(&$0, at: bitsAt, 4000, size: 4) }, 65, "4000 bits of precision"),
            ("limit.orbit", forged { setWord(&$0, at: limitAt, 1499) }, 65, "--iterations 1499, not 1500"),
            ("length.orbit", forged { setWord(&$0, at: lengthAt, 1 << 40) }, 65, "1099511627776 steps"),
            ("zero.orbit", forged { setWord(&$0, at: lengthAt, 0) }, 65, "0 steps"),
            ("tiny.orbit", forged { setWord(&$0, at: tinyAt, 1 << 62) }, 65, "do not hold"),
            ("flag.orbit", forged { $0[periodFlagAt] ^= 1 }, 65, "its orbit was computed with --period"),
            ("period.orbit", forged { setWord(&$0, at: periodAt, 7) }, 65, "has a period of 7"),
            ("centre.orbit", forged { $0[15 + 4 + realCount - 1] ^= 1 }, 65, "it is the orbit of --center"),
            // A newline inside the centre's text, which a refusal naming the centre would carry.
            ("text.orbit", forged { $0[15 + 4 + 5] = 0x0A }, 65, "its centre is not a pair of decimal numbers"),
            (
                "point.orbit", forged { setWord(&$0, at: $0.count - 16 * 3, Double.nan.bitPattern) }, 65,
                "no orbit there"
            ),
            ("outside.orbit", forged { setWord(&$0, at: $0.count - 16 * 40, 3.0.bitPattern) }, 65, "no orbit there"),
            ("trailing.orbit", forged { $0 += [0] }, 65, "do not hold"),
            // Small steps out of order: one listed twice, step 0 (Z_0 is 0, never a small step), one before the
            // step listed ahead of it (round eight's orbit-file-tiny-repeated took the first two).
            ("twice.orbit", forged { smallSteps(&$0, [7, 7]) }, 65, "its small step 7 is out of order"),
            ("step-zero.orbit", forged { smallSteps(&$0, [0]) }, 65, "its small step 0 is out of order"),
            ("backwards.orbit", forged { smallSteps(&$0, [9, 4]) }, 65, "its small step 4 is out of order"),
            ("past-end.orbit", forged { smallSteps(&$0, [1 << 40]) }, 65, "is out of order or past the orbit's end"),
            // A flag is 0 or 1 (round eight's wire-flag-any-nonzero read 2 as true).
            ("flag-two.orbit", forged { $0[periodFlagAt] = 2 }, 65, "a flag holds 2"),
        ]
        for file in files {
            if let contents = file.contents { try contents.write(to: URL(fileURLWithPath: folder + "/" + file.name)) }
            let result = try MandelProcess.run(
                Self.zoom + ["--frame", "3/5", "--orbit", file.name, "-o", "out.png"], in: folder)
            #expect(result.status == file.status, "\(file.name): \(result.standardError)")
            let lines = result.standardError.split(separator: "\n")
            #expect(
                lines.count == 1 && lines[0].contains("--orbit '\(file.name)'"), "\(file.name): \(result.standardError)"
            )
            #expect(result.standardError.contains(file.says), "\(file.name): \(result.standardError)")
            #expect(Self.bytes(folder, "out.png") == nil, "\(file.name): a picture was written")
        }
        // Not a regular file: a folder and a FIFO with no writer, refused at once, never waited on.
        try FileManager.default.createDirectory(atPath: folder + "/folder.orbit", withIntermediateDirectories: false)
        #expect(mkfifo(folder + "/fifo.orbit", 0o600) == 0)
        for (name, kind) in [("folder.orbit", "a folder"), ("fifo.orbit", "a FIFO")] {
            let result = try MandelProcess.run(
                Self.zoom + ["--frame", "3/5", "--orbit", name, "-o", "out.png"], in: folder)
            #expect(result.status == 66 && result.standardError.contains("it is \(kind)"), "\(result.standardError)")
        }
        // Another size needs another precision; another --zoom-to another too.
        for (arguments, says) in [
            (["--size", "720x480"], "this render's needs"), (["--zoom-to", "1e30"], "this render's needs"),
        ] {
            let result = try MandelProcess.run(
                Self.zoom + arguments + ["--frame", "3/5", "--orbit", "good.orbit", "-o", "out.png"], in: folder)
            #expect(result.status == 65 && result.standardError.contains(says), "\(arguments): \(result.standardError)")
        }
    }

    /// A regular file whose size says more than it holds: a sysfs file is 4,096 bytes by its size and a
    /// few bytes by its contents, what an orbit file cut short by another process after its size was
    /// read looks like to the reader. Nil where there is no such file.
    static let fileShorterThanItsSize: (path: String, holds: Int, size: Int)? = {
        for path in [
            "/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
            "/sys/kernel/mm/transparent_hugepage/enabled",
        ] {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let size = (attributes[.size] as? NSNumber)?.intValue, size >= 64,
                let contents = FileManager.default.contents(atPath: path), contents.count < size
            else { continue }
            return (path, contents.count, size)
        }
        return nil
    }()

    /// The reader's loop stops where the file ends before its size: a file cut short is not the orbit
    /// asked for (65), not a file that cannot be read (66), and it is never waited on (round eight's
    /// orbit-cut-short-unreadable: no file of the tests was ever shorter than its size).
    @Test(
        "an orbit file that ends before its size is refused as cut short (65), with how much was read",
        .enabled(if: fileShorterThanItsSize != nil))
    func orbitFileCutShortWhileRead() throws {
        let short = try #require(Self.fileShorterThanItsSize)
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            Self.zoom + ["--frame", "3/5", "--orbit", short.path, "-o", "out.png"], in: folder)
        #expect(result.status == 65, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n")
        let says = "it was cut short while it was read (\(short.holds) of \(short.size) bytes)"
        #expect(
            lines.count == 1 && lines[0].contains("--orbit '\(short.path)': \(says)"), "\(result.standardError)")
        #expect(Self.bytes(folder, "out.png") == nil, "a picture was written")
    }

    @Test(
        "what a zoom of every frame, or an orbit file, cannot be is refused up front",
        arguments: [
            (["--frames", "5", "-o", "f.png"], "give -o a name with the frame's number, such as frame-%04d.png"),
            (["--frames", "5", "-o", "f-%d-%d.png"], "it has two frame numbers"),
            (["--frames", "5", "-o", "f-%s.png"], "'%s' is not a number's form"),
            (["--frames", "5", "-o", "f-%123d.png"], "is not a number's form"),
            (["--frames", "5", "-o", "f-%d.png", "--counts", "c.npy"], "--counts names one file"),
            (["--frames", "5", "-o", "f-%d.png", "--part", "0/2"], "--part renders part of one picture"),
            (["--frames", "5", "-o", "-"], "give -o a name with the frame's number"),
            (
                ["--zoom-to", "1e12", "--frames", "5", "-o", "f-%d.png", "--orbit-out", "f-%d.png"],
                "name the same file"
            ),
        ])
    func zoomRefusals(arguments: [String], says: String) throws {
        let result = try MandelProcess.run(Self.zoom + arguments, in: temporaryFolder())
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains(says), "\(arguments): \(result.standardError)")
    }

    @Test(
        "--zoom-to and --frames each need the other (or --frame); an orbit file needs an orbit",
        arguments: [
            (["render", "--zoom-to", "1e9"], "add --frames N to render its N frames, or --frame K/N"),
            (["render", "--frames", "4", "-o", "f-%d.png"], "add --zoom-to with the last frame's zoom"),
            (["render", "--zoom", "1e3", "--orbit-out", "o.orbit"], "this render has no reference orbit"),
            (["render", "--zoom", "1e9", "--precision", "double", "--orbit", "o.orbit"], "no reference orbit"),
            (
                ["render", "--preset", "benchmarks-game", "--size", "64x64", "--orbit-out", "o.orbit"],
                "no reference orbit"
            ),
            (["render", "--zoom", "1e9", "--orbit-out", "-"], "give a file name"),
        ])
    func orbitNeedsADeepView(arguments: [String], says: String) throws {
        let result = try MandelProcess.run(arguments, in: temporaryFolder())
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains(says), "\(arguments): \(result.standardError)")
    }
}
