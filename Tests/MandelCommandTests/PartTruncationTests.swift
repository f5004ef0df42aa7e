import Foundation
import ImageFiles
import ProcessTestSupport
import Testing

/// A part cut short at every length names what the cut left: no signature, a header cut inside, no
/// room for its footer, or a footer that is not one. The fuzzer cuts parts at random lengths and
/// checks only that each is refused in one line; here every length is tried, and the line is the
/// one for its class.
@Suite("Parts and a join: a part cut short at every length")
struct PartTruncationTests {
    @Test("a part cut at each length from 0 to its size - 1 is refused with the reason of where it was cut")
    func everyLength() throws {
        let folder = try PartRefusalTests.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let part = try PartRefusalTests.bytes(folder, "p1")
        // The layout (docs/parts.md): an 8-byte signature in 16 bytes of start, the PNG head, 32 bytes of
        // fields and CRC; the chunks; a 32-byte footer.
        let headerBytes = 16 + Int(ForgedPart.word(part, at: 12)) + 32
        #expect(headerBytes > 16 && headerBytes + PartFooter.size < part.count)
        var seen: [String: Int] = [:]
        for length in 0..<part.count {
            try PartRefusalTests.write(Array(part.prefix(length)), folder, "cut")
            let expected: PartJoinError =
                switch length {
                case ..<8:
                    .notAPart(
                        path: folder + "/cut", reason: "it does not begin with a part file's signature (\\x8BMPART)")
                case ..<headerBytes: .damaged(path: folder + "/cut", reason: "it ends inside its header (truncated)")
                case ..<(headerBytes + PartFooter.size):
                    .damaged(path: folder + "/cut", reason: "it ends before its footer (truncated)")
                default:
                    .damaged(
                        path: folder + "/cut",
                        reason: "it does not end with a part's footer (truncated, or written only in part)")
                }
            do {
                _ = try PartJoin(paths: ["p0", "cut", "p2"].map { folder + "/" + $0 })
                Issue.record("a part cut to \(length) of \(part.count) bytes was joined")
            } catch {
                #expect(error == expected, "cut to \(length) of \(part.count) bytes")
                seen[expected.description, default: 0] += 1
            }
        }
        #expect(seen.count == 4, "\(seen)")
        // The real binary at each class's first and last length: exit 65, the same line, nothing written.
        for length in [
            0, 7, 8, 15, 16, headerBytes - 1, headerBytes, headerBytes + PartFooter.size - 1,
            headerBytes + PartFooter.size, part.count - 1,
        ] {
            try PartRefusalTests.write(Array(part.prefix(length)), folder, "cut")
            let reason =
                length < 8
                ? "is not a part file"
                : length < headerBytes
                    ? "ends inside its header"
                    : length < headerBytes + PartFooter.size
                        ? "ends before its footer" : "does not end with a part's footer"
            try PartRefusalTests.expectJoinRefused(["p0", "cut", "p2"], in: folder, status: 65, mentioning: reason)
        }
    }
}
