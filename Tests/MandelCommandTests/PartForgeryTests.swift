import Foundation
import ImageFiles
import ProcessTestSupport
import Testing

/// Parts whose fields were edited with every CRC-32 recomputed: the join refuses each with one
/// line and exit 65, in little memory and time, and never writes a PNG a checker would reject
/// (issue 44, items 1 and 2). Every field of a header or footer is arithmetic on untrusted
/// numbers; each is checked against what the parts given can hold.
@Suite("Parts and a join: forged fields")
struct PartForgeryTests {
    /// One edit of a part, named.
    struct Forgery: CustomTestStringConvertible, Sendable {
        let name: String
        /// Words the refusal's line must hold, where a test names them (the reason, not only "damaged").
        var says = ""
        let edit: @Sendable (inout ForgedPart) -> Void
        var testDescription: String { name }
    }

    /// Forged numbers in one part, joined alone or with the true others: each once crashed, tried
    /// to allocate gigabytes, or would make arithmetic overflow (or would have, without the check before).
    static let numbers: [Forgery] = [
        Forgery(name: "S = N = 2^32 − 1, K = 2^32 − 2 (overflowed K·S)") {
            $0.cut(slices: .max, parts: .max, index: .max - 1)
        },
        Forgery(name: "S = N = 2^32 − 1, K = 0 (a table of N parts)") { $0.cut(slices: .max, parts: .max, index: 0) },
        Forgery(name: "S = N = 20,000,000, K = 0") { $0.cut(slices: 20_000_000, parts: 20_000_000, index: 0) },
        Forgery(name: "S = N = 2^31, K = 1") { $0.cut(slices: 1 << 31, parts: 1 << 31, index: 1) },
        Forgery(name: "N = 0") { $0.cut(slices: $0.header.sliceCount, parts: 0, index: 0) },
        Forgery(name: "K = N = 3") { $0.cut(slices: $0.header.sliceCount, parts: 3, index: 3) },
        Forgery(name: "rows per slice 0") { $0.header.sliceRows = 0 },
        Forgery(name: "rows per slice 2^32 − 1") { $0.header.sliceRows = .max },
        Forgery(name: "rows per slice 1, slices = rows") {
            $0.header.sliceRows = 1
            $0.cut(slices: 100, parts: 3, index: 1)
        },
        Forgery(name: "the slice after its last 2^32 − 1") { $0.header.endSlice = .max },
        Forgery(name: "first slice after its last") { swap(&$0.header.firstSlice, &$0.header.endSlice) },
        Forgery(name: "body bytes 2^64 − 1") { $0.footer.bodyBytes = .max },
        Forgery(name: "body bytes 2^64 − 33") { $0.footer.bodyBytes = .max - 32 },
        Forgery(name: "body bytes 0") { $0.footer.bodyBytes = 0 },
        Forgery(name: "filtered bytes 2^63") { $0.footer.filteredBytes = 1 << 63 },
        Forgery(name: "filtered bytes 2^64 − 1") { $0.footer.filteredBytes = .max },
        Forgery(name: "filtered bytes 0") { $0.footer.filteredBytes = 0 },
        Forgery(name: "IHDR height 2^32 − 1") { $0.setIHDR(.max, at: 4) },
        Forgery(name: "IHDR width 2^31 − 1") { $0.setIHDR(0x7FFF_FFFF, at: 0) },
        Forgery(name: "IHDR height 0") { $0.setIHDR(0, at: 4) },
        Forgery(name: "RGB (2^31 − 1)², one slice, its 1.4 × 10^19 filtered bytes in the footer") { part in
            part.setIHDR(0x7FFF_FFFF, at: 0)
            part.setIHDR(0x7FFF_FFFF, at: 4)
            part.editHeadChunk(at: 8) { $0[9] = 2 }
            part.header.sliceRows = 0x7FFF_FFFF
            part.cut(slices: 1, parts: 1, index: 0)
            part.footer.filteredBytes = 0x7FFF_FFFF * (0x7FFF_FFFF * 3 + 1)
        },
    ]

    /// PNG allows a tEXt keyword of 1 to 79 characters. Each part's first tEXt chunk (Software) is given a
    /// keyword of each length at the bound, the same in every part (one part alone would be refused as
    /// of another picture), every CRC made to hold again: 79 is joined, and kept in the PNG; 80 is not.
    @Test("a tEXt keyword of 79 characters in every part is joined and kept; one of 80 is refused")
    func keywordAtItsBound() throws {
        let folder = try PartRefusalTests.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for length in [79, 80] {
            let keyword = [UInt8](repeating: UInt8(ascii: "K"), count: length)
            for index in 0..<3 {
                var part = ForgedPart(try PartRefusalTests.bytes(folder, "p\(index)"))
                // The head: the PNG signature, IHDR (8 + 13 + 4 bytes), then the first tEXt chunk at 33.
                #expect(Array(part.header.pngHead[37..<41]) == Array("tEXt".utf8))
                part.editHeadChunk(at: 33) { data in
                    let end = data.firstIndex(of: 0) ?? 0
                    data.replaceSubrange(0..<end, with: keyword)
                }
                try PartRefusalTests.write(part.bytes, folder, "k\(index)")
            }
            let output = "out-\(length).png"
            let result = try MandelProcess.run(["join", "k0", "k1", "k2", "-o", output], in: folder)
            if length == 79 {
                #expect(result.status == 0, "\(result.standardError)")
                let joined = try PartRefusalTests.bytes(folder, output)
                #expect(joined.count > 100 && joined[33 + 8..<33 + 8 + 79].elementsEqual(keyword), "the keyword kept")
            } else {
                expectRefusal(result, status: 65, mentioning: "no keyword of 1 to 79")
                #expect(!FileManager.default.fileExists(atPath: folder + "/" + output))
            }
        }
    }

    @Test("a forged number in a part: refused with one line and exit 65, peak memory under 100 MiB", arguments: numbers)
    func forgedNumber(forgery: Forgery) throws {
        let folder = try PartRefusalTests.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var part = ForgedPart(try PartRefusalTests.bytes(folder, "p1"))
        forgery.edit(&part)
        try PartRefusalTests.write(part.bytes, folder, "forged")
        for files in [["forged"], ["p0", "forged", "p2"]] {
            let before = contents(of: folder)
            let result = try MandelProcess.run(
                ["join"] + files + ["-o", "out.png"], in: folder,
                launch: MandelProcess.Launch(shellSetup: "exec /usr/bin/time -f 'peak %M' \"$0\" \"$@\"; :"),
                deadline: 30)
            // time(1) adds "Command exited with non-zero status 65" and the peak after mandel's own line.
            let lines = result.standardError.split(separator: "\n").filter { !$0.hasPrefix("Command exited") }
            #expect(result.status == 65, "\(forgery.name), \(files): \(result.standardError)")
            #expect(lines.count == 2 && lines[0].hasPrefix("mandel: '"), "\(forgery.name): \(result.standardError)")
            let peak = lines.last.flatMap { Int($0.dropFirst(5)) } ?? .max
            #expect(peak < 100 << 10, "\(forgery.name), \(files): peak resident \(peak) KiB")
            #expect(contents(of: folder) == before, "\(forgery.name): left \(contents(of: folder))")
        }
    }

    /// Forgeries that agree with themselves in every part given: each once joined with exit 0 into a PNG
    /// that a checker rejects.
    static let consistent: [Forgery] = [
        Forgery(
            name: "IHDR height 100,000",
            says:
                "its header says 17 slices of 6 rows, and its PNG head 100000 rows (slices of 1 to 100000 rows, as many as cover them)"
        ) { $0.setIHDR(100_000, at: 4) },
        Forgery(
            name: "IHDR height 99 (one row fewer)",
            says: "its footer says its rows inflate to 4114 bytes, and its rows hold 3993"
        ) { $0.setIHDR(99, at: 4) },
        Forgery(name: "IHDR width 121", says: "its footer says its rows inflate to 3630 bytes, and its rows hold 3660")
        { $0.setIHDR(121, at: 0) },
        Forgery(
            name: "IHDR colour type RGB",
            says: "its footer says its rows inflate to 3630 bytes, and its rows hold 10830"
        ) { part in part.editHeadChunk(at: 8) { $0[9] = 2 } },
        Forgery(
            name: "IHDR bit depth 16",
            says: "its IHDR says bit depth 16 and colour type 0; mandel writes gray 1-bit, gray 8-bit and RGB 8-bit"
        ) { part in part.editHeadChunk(at: 8) { $0[8] = 16 } },
        Forgery(
            name: "IHDR interlaced",
            says: "its IHDR asks for another compression, filtering or interlacing than PNG's standard ones"
        ) { part in part.editHeadChunk(at: 8) { $0[12] = 1 } },
        Forgery(
            name: "a tEXt keyword emptied",
            says: "a tEXt chunk of its PNG head has no keyword of 1 to 79 printable characters"
        ) { part in
            part.editHeadChunk(at: 33) { data in data.removeSubrange(0..<data.firstIndex(of: 0)!) }
        },
        Forgery(name: "a tEXt chunk's CRC-32 wrong", says: "a chunk of its PNG head fails its CRC-32") { part in
            part.header.pngHead[33 + 12 + Int(ForgedPart.word(part.header.pngHead, at: 33)) - 1] ^= 1
        },
        Forgery(
            name: "an IEND chunk in the head",
            says: "its PNG head holds a chunk of type 'IEND'; a part's head holds IHDR and tEXt only"
        ) { part in
            part.header.pngHead += ForgedPart.chunk(type: Array("IEND".utf8), data: [])
        },
        Forgery(
            name: "a head chunk whose type is not four letters",
            says: "its PNG head holds a chunk whose type is not four letters"
        ) { part in
            part.header.pngHead += ForgedPart.chunk(type: Array("tE1t".utf8), data: [0x61, 0])
        },
        Forgery(
            name: "a head that does not begin with IHDR", says: "its PNG head does not begin with a 13-byte IHDR chunk"
        ) { part in
            // The signature, then the tEXt chunks, then IHDR.
            let head = part.header.pngHead
            part.header.pngHead = Array(head[0..<8]) + Array(head[33...]) + Array(head[8..<33])
        },
    ]

    @Test("the same forged field in every part: refused, never a PNG a checker rejects", arguments: consistent)
    func forgedEverywhere(forgery: Forgery) throws {
        let folder = try PartRefusalTests.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for index in 0..<3 {
            var part = ForgedPart(try PartRefusalTests.bytes(folder, "p\(index)"))
            forgery.edit(&part)
            try PartRefusalTests.write(part.bytes, folder, "f\(index)")
        }
        try PartRefusalTests.expectJoinRefused(
            ["f0", "f1", "f2"], in: folder, status: 65, mentioning: "is damaged: \(forgery.says) (corrupted)")
    }

    /// Forgeries of one part's image data or footer, every CRC-32 recomputed: only inflating the
    /// stream, or the rows its header names, can tell. Where the reason depends on which part was
    /// forged (what the damaged stream inflates to), `says` is what every part's refusal holds.
    static let data: [Forgery] = [
        Forgery(name: "the footer's Adler-32 + 1", says: "its image data's Adler-32 is not the one its footer states") {
            $0.footer.adler &+= 1
        },
        Forgery(name: "the footer's filtered bytes + 1", says: "its footer says its rows inflate to") {
            $0.footer.filteredBytes += 1
        },
        Forgery(name: "a byte in the middle of a chunk's data", says: "its image data") { part in
            part.editChunk(part.chunks.count / 2) { $0[$0.count / 2] ^= 0x55 }
        },
        Forgery(
            name: "a chunk's last data byte",
            says: "its image data is wrong: it does not inflate (invalid stored block lengths)"
        ) { part in part.editChunk(0) { $0[$0.count - 1] ^= 0x01 } },
        Forgery(name: "a chunk emptied", says: "its ") { part in part.editChunk(0) { $0 = [] } },
        Forgery(name: "two chunks swapped", says: "its image data") { part in part.chunks.swapAt(0, 1) },
        Forgery(name: "a chunk's data doubled", says: "its image data is wrong: it ") { part in
            part.editChunk(0) { $0 += $0 }
        },
    ]

    @Test("a part's image data or footer forged: refused, never a PNG a checker rejects", arguments: data)
    func forgedData(forgery: Forgery) throws {
        let folder = try PartRefusalTests.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["p0", "p1", "p2"] {
            var part = ForgedPart(try PartRefusalTests.bytes(folder, name))
            forgery.edit(&part)
            try PartRefusalTests.write(part.bytes, folder, "forged")
            let files = ["p0", "p1", "p2"].map { $0 == name ? "forged" : $0 }
            try PartRefusalTests.expectJoinRefused(
                files, in: folder, status: 65, mentioning: "'forged' is damaged: \(forgery.says)")
            // To standard output the parts are checked before the first byte.
            let result = try MandelProcess.run(["join"] + files + ["-o", "-"], in: folder)
            expectRefusal(result, status: 65, mentioning: "'forged' is damaged: \(forgery.says)")
            #expect(result.standardOutput.isEmpty, "\(forgery.name): bytes on standard output")
            try FileManager.default.removeItem(atPath: folder + "/forged")
        }
    }

    @Test("taken apart and put together unchanged, parts join into the one-machine PNG (the forger is exact)")
    func unchangedRoundTrip() throws {
        let folder = try PartRefusalTests.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let one = try MandelProcess.run(["render"] + PartRefusalTests.picture + ["-o", "one.png"], in: folder)
        #expect(one.status == 0)
        for index in 0..<3 {
            let bytes = try PartRefusalTests.bytes(folder, "p\(index)")
            let rebuilt = ForgedPart(bytes).bytes
            #expect(rebuilt == bytes, "part \(index) rebuilt differs")
            try PartRefusalTests.write(rebuilt, folder, "r\(index)")
        }
        let joined = try MandelProcess.run(["join", "r2", "r0", "r1", "-o", "joined.png"], in: folder)
        #expect(joined.status == 0, "\(joined.standardError)")
        #expect(try PartRefusalTests.bytes(folder, "joined.png") == PartRefusalTests.bytes(folder, "one.png"))
    }

    /// The last part's image data as one final stored block of filtered rows of zeros (cut into
    /// one chunk a slice), every count and checksum its own (the body's bytes, the filtered bytes,
    /// the Adler-32), its first row under filter type `firstFilter`: only the rows' filter types
    /// can tell it from a real part.
    static func storedLastPart(_ bytes: [UInt8], firstFilter: UInt8) -> [UInt8] {
        var part = ForgedPart(bytes)
        var rows = [UInt8](repeating: 0, count: Int(part.footer.filteredBytes))
        rows[0] = firstFilter
        let length = UInt16(rows.count)
        let block: [UInt8] =
            [0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + rows
        // One chunk a slice, as a part has.
        let slices = Int(part.header.endSlice) - Int(part.header.firstSlice)
        part.chunks = (0..<slices).map { index in
            ForgedPart.chunk(
                type: Array("IDAT".utf8),
                data: Array(block[(index * block.count / slices)..<((index + 1) * block.count / slices)]))
        }
        part.footer.bodyBytes = UInt64(part.chunks.map(\.count).reduce(0, +))
        var (low, high): (UInt32, UInt32) = (1, 0)
        for byte in rows {
            low = (low + UInt32(byte)) % 65521
            high = (high + low) % 65521
        }
        part.footer.adler = high << 16 | low
        return part.bytes
    }

    @Test("a row under a filter type PNG does not have (5, 255) is refused; the same part under Sub joins")
    func unknownFilterType() throws {
        let folder = try PartRefusalTests.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let last = try PartRefusalTests.bytes(folder, "p2")
        // The forger is exact: under filter type 1 (Sub) the same rows join, and a checker takes the PNG.
        try PartRefusalTests.write(Self.storedLastPart(last, firstFilter: 1), folder, "sub")
        let joined = try MandelProcess.run(["join", "p0", "p1", "sub", "-o", "joined.png"], in: folder)
        #expect(joined.status == 0, "\(joined.standardError)")
        let image = try PNGImage(contentsOf: folder + "/joined.png")
        #expect(image.width == 120 && image.height == 100)
        for filter: UInt8 in [5, 255] {
            try PartRefusalTests.write(Self.storedLastPart(last, firstFilter: filter), folder, "forged")
            try PartRefusalTests.expectJoinRefused(
                ["p0", "p1", "forged"], in: folder, status: 65,
                mentioning: "'forged' is damaged: its image data is wrong: a row's filter type is not one of 0 to 4")
            try FileManager.default.removeItem(atPath: folder + "/forged")
        }
    }
}
