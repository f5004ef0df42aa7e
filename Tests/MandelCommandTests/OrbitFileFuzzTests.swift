import Foundation
import ImageFiles
import MandelbrotCore
import RenderModel
import Testing

/// Orbit files (`render --orbit`) under hostile edits: `scripts/fuzz --target orbit` runs a
/// million, the ordinary suite a few hundred from a fixed seed. Each input is a real orbit file
/// damaged or forged one way (most with the checksum made to hold again, so that the edit reaches
/// the fields), read in process as `render --orbit` reads it. Every input must be taken (an orbit
/// of the right shape) or refused with one line and exit 65 or 66; none may crash, hang, or take
/// 100 MB.
@Suite("Orbit file fuzzing", .serialized)
struct OrbitFileFuzzTests {
    static let settings = FuzzSettings(inputs: 400, seed: 43, binaryInputs: 0)
    static let memoryLimit = 100 << 20
    /// A read that has not ended after this is a hang: the process stops, naming it.
    static let hangSeconds = 60.0

    /// The orbit the files are of: a centre near the seahorse valley, 3,000 steps, with steps kept exactly.
    static func wanted() -> ZoomOrbit {
        ZoomOrbit(
            centerReal: "-0.743643887037158704752191506114774", centerImaginary: "0.131825904205311970493132056385139",
            bits: 128, limit: 3000)
    }

    /// A valid orbit file's bytes.
    static func validFile(in folder: String) throws -> [UInt8] {
        let orbit = wanted()
        let steps = try #require(try orbit.computedSteps(cancellation: CancellationFlag()))
        let path = folder + "/valid.orbit"
        let file = try OutputFile(path: path)
        try OrbitFile.write(orbit, steps: steps, to: file)
        try file.commit()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// How one file was read: taken (an orbit of the right shape) or refused, and what was wrong.
    struct Read: FuzzOutcome {
        let name: String
        let problem: String?
        let peakGrowth: Int
    }

    /// Reads `input` from `path` as `render --orbit` does.
    static func read(_ input: OrbitFileForger.Forged, at path: String, measuresMemory: Bool) throws -> Read {
        try Data(input.bytes).write(to: URL(fileURLWithPath: path))
        let wanted = Self.wanted()
        let base = measuresMemory ? PeakMemory.resetToResident() : 0
        var name = "taken"
        var problem: String?
        do {
            let orbit = try OrbitFile.read(path, for: wanted)
            if !(orbit.isComputed && orbit.bits == wanted.bits && orbit.limit == wanted.limit) {
                problem = "taken, but not the orbit asked for"
            }
        } catch {
            name = "refused (\(error.exitCode))"
            if error.exitCode != 65 && error.exitCode != 66 { problem = "exit \(error.exitCode)" }
            // One line of text: no control character, nothing that was not text in the file.
            let oneLine =
                error.description.hasPrefix("--orbit '")
                && error.description.unicodeScalars.allSatisfy {
                    $0.properties.generalCategory != .control && $0 != "\u{FFFD}"
                }
            if !oneLine { problem = "refused with: \(error.description)" }
        }
        return Read(
            name: name, problem: problem, peakGrowth: measuresMemory ? PeakMemory.highWater() - base : 0)
    }

    @Test("no orbit file crashes the reader, hangs it, takes 100 MB, or is refused without one line and 65 or 66")
    func readerSurvivesHostileFiles() throws {
        let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let work = folder + "/mandel-orbit-fuzz-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        var forger = OrbitFileForger(valid: try Self.validFile(in: work), seed: Self.settings.seed)
        let measuresMemory = Self.settings.measuresMemory
        let counts = try FuzzLoop.run(
            "orbit", Self.settings, memoryLimit: Self.memoryLimit, hangSeconds: Self.hangSeconds,
            inputs: { _ in forger.next() },
            { try Self.read($0, at: work + "/input.orbit", measuresMemory: measuresMemory) })
        // The forger must reach both ends: files taken (edits a valid orbit survives) and refused.
        #expect(counts["taken", default: 0] > 0 && counts["refused (65)", default: 0] > 0, "\(counts)")
    }
}

/// Damaged and forged orbit files made from a valid one: bits flipped, cut short, lengthened;
/// and, with the CRC-32 made to hold again, each field of the header set to a boundary value,
/// bytes anywhere set to boundary bytes, points set to special numbers, the body cut or grown.
struct OrbitFileForger {
    let valid: [UInt8]
    var random: SeededRandom
    /// Where the header's fields start: the real text's count, the imaginary text's, the bits, the
    /// limit, the length, the count of small steps, the first small step, the points.
    let fields: [(name: String, offset: Int, size: Int)]

    init(valid: [UInt8], seed: UInt64) {
        self.valid = valid
        random = SeededRandom(seed: seed)
        func word(_ at: Int) -> Int { Int(valid[at]) | Int(valid[at + 1]) << 8 | Int(valid[at + 2]) << 16 }
        let real = 15
        let imaginary = real + 4 + word(real)
        let bits = imaginary + 4 + word(imaginary)
        fields = [
            ("real text count", real, 4), ("imaginary text count", imaginary, 4), ("bits", bits, 4),
            ("limit", bits + 4, 8), ("length", bits + 12, 8), ("period flag", bits + 20, 1), ("period", bits + 21, 8),
            ("small steps", bits + 29, 8), ("first point", bits + 37, 8),
        ]
    }

    static let boundaries: [UInt64] = [
        0, 1, 2, 63, 64, 127, 128, 129, 2999, 3000, 3001, 1 << 31, (1 << 32) - 1, 1 << 32, 1 << 40, 1 << 62,
        UInt64.max, UInt64.max - 1, Double.nan.bitPattern, Double.infinity.bitPattern, 4.0.bitPattern,
        (-0.0).bitPattern, 2.0000001.bitPattern,
    ]

    /// `body` (the file without its checksum) with a checksum that holds.
    static func sealed(_ body: [UInt8]) -> [UInt8] {
        let crc = body.withUnsafeBytes { Checksum.crc32($0) }
        return body + withUnsafeBytes(of: crc.littleEndian) { Array($0) }
    }

    mutating func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }

    /// One damaged or forged file, and how it was made.
    struct Forged: FuzzInput {
        let bytes: [UInt8]
        let what: String
    }

    mutating func next() -> Forged {
        let (bytes, what) = nextBytes()
        return Forged(bytes: bytes, what: what)
    }

    private mutating func nextBytes() -> (bytes: [UInt8], what: String) {
        var body = Array(valid.dropLast(4))
        switch random.next() % 8 {
        case 0:
            var bytes = valid
            let at = Int(random.next() % UInt64(bytes.count))
            bytes[at] ^= UInt8(1 << (random.next() % 8))
            return (bytes, "a bit flipped at \(at)")
        case 1:
            let count = Int(random.next() % UInt64(valid.count))
            return (Array(valid.prefix(count)), "cut to \(count) bytes")
        case 2, 3:
            let field = pick(fields)
            let value = pick(Self.boundaries) &+ (random.next() % 4 == 0 ? random.next() % 3 : 0)
            for index in 0..<field.size { body[field.offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
            return (Self.sealed(body), "\(field.name) set to \(value), sealed")
        case 4:
            let edits = 1 + Int(random.next() % 4)
            var said: [Int] = []
            for _ in 0..<edits {
                let at = Int(random.next() % UInt64(body.count))
                body[at] = pick([0, 1, 0x7F, 0x80, 0xFF, UInt8(truncatingIfNeeded: random.next())])
                said.append(at)
            }
            return (Self.sealed(body), "bytes at \(said) set, sealed")
        case 5:
            // A point (re or im) of the orbit set to a special number.
            let points = (body.count - (fields[8].offset)) / 8
            let at = fields[8].offset + 8 * Int(random.next() % UInt64(max(1, points)))
            let value = pick([Double.nan, .infinity, -.infinity, 2.5, -3, 1e300, 0, .leastNonzeroMagnitude])
            for index in 0..<8 { body[at + index] = UInt8(truncatingIfNeeded: value.bitPattern >> (8 * index)) }
            return (Self.sealed(body), "point byte \(at) set to \(value), sealed")
        case 6:
            let count = Int(random.next() % UInt64(body.count))
            return (Self.sealed(Array(body.prefix(count))), "body cut to \(count) bytes, sealed")
        default:
            let extra = Int(random.next() % 64)
            return (
                Self.sealed(body + (0..<extra).map { _ in UInt8(truncatingIfNeeded: random.next()) }),
                "\(extra) bytes added, sealed"
            )
        }
    }
}
