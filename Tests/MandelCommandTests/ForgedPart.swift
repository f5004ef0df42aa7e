import Foundation
import ImageFiles

/// A part file taken apart into its fields, to be edited and put back together with every
/// CRC-32 recomputed (the IHDR's, the header's, the footer's, a chunk's): what anyone can do to
/// a part, so what a join must check past the CRCs.
struct ForgedPart {
    var header: PartHeader
    /// The IDAT chunks, each as its length, type, data and CRC-32.
    var chunks: [[UInt8]]
    var footer: PartFooter
    /// A version other than the one the header writes, if set.
    var statedVersion: UInt32?
    /// A length of the PNG head other than its own, if set: the header then lies about where its fields are.
    var statedHeadBytes: UInt32?

    /// Takes apart the bytes of a part that `mandel render --part` wrote.
    init(_ bytes: [UInt8]) {
        let headBytes = Int(Self.word(bytes, at: 12))
        let fields = 16 + headBytes
        header = PartHeader(
            pngHead: Array(bytes[16..<fields]), level: bytes[fields], strategy: bytes[fields + 1],
            sliceRows: Self.word(bytes, at: fields + 4), sliceCount: Self.word(bytes, at: fields + 8),
            partCount: Self.word(bytes, at: fields + 12), partIndex: Self.word(bytes, at: fields + 16),
            firstSlice: Self.word(bytes, at: fields + 20), endSlice: Self.word(bytes, at: fields + 24))
        chunks = []
        var offset = fields + 32
        while offset < bytes.count - PartFooter.size {
            let length = Int(Self.word(bytes, at: offset))
            chunks.append(Array(bytes[offset..<(offset + 12 + length)]))
            offset += 12 + length
        }
        let end = bytes.count
        footer = PartFooter(
            bodyBytes: UInt64(Self.word(bytes, at: end - 24)) << 32 | UInt64(Self.word(bytes, at: end - 20)),
            filteredBytes: UInt64(Self.word(bytes, at: end - 16)) << 32 | UInt64(Self.word(bytes, at: end - 12)),
            adler: Self.word(bytes, at: end - 8))
    }

    /// The part's bytes, with the header's and the footer's CRC-32 recomputed.
    var bytes: [UInt8] {
        var head = header.bytes
        if statedVersion != nil || statedHeadBytes != nil {
            head.replaceSubrange(8..<12, with: Self.bigEndian(statedVersion ?? PartHeader.version))
            head.replaceSubrange(12..<16, with: Self.bigEndian(statedHeadBytes ?? UInt32(header.pngHead.count)))
            head.replaceSubrange((head.count - 4)..., with: Self.bigEndian(Self.crc32(Array(head.dropLast(4)))))
        }
        return head + chunks.flatMap { $0 } + footer.bytes(headerCRC: Self.word(head, at: head.count - 4))
    }

    /// Sets the cut: slices S, parts N, this part K, and the slices that K of N has, so that
    /// the header's own numbers agree with each other whatever they are.
    mutating func cut(slices: UInt32, parts: UInt32, index: UInt32) {
        header.sliceCount = slices
        header.partCount = parts
        header.partIndex = index
        header.firstSlice = UInt32(truncatingIfNeeded: UInt64(index) * UInt64(slices) / UInt64(max(parts, 1)))
        header.endSlice = UInt32(truncatingIfNeeded: (UInt64(index) + 1) * UInt64(slices) / UInt64(max(parts, 1)))
    }

    /// Edits the data of the head's chunk at `offset` (from the head's start, 8 for the IHDR)
    /// and recomputes its CRC-32.
    mutating func editHeadChunk(at offset: Int, _ edit: (inout [UInt8]) -> Void) {
        var head = header.pngHead
        let length = Int(Self.word(head, at: offset))
        var data = Array(head[(offset + 8)..<(offset + 8 + length)])
        edit(&data)
        let chunk = Self.chunk(type: Array(head[(offset + 4)..<(offset + 8)]), data: data)
        head.replaceSubrange(offset..<(offset + 12 + length), with: chunk)
        header.pngHead = head
    }

    /// Sets a big-endian u32 of the IHDR's data (0 width, 4 height) and recomputes the chunk's CRC-32.
    mutating func setIHDR(_ value: UInt32, at offset: Int) {
        editHeadChunk(at: 8) { $0.replaceSubrange(offset..<(offset + 4), with: Self.bigEndian(value)) }
    }

    /// Sets a big-endian field of `size` bytes at `offset` of the IHDR's data (8 bit depth, 9 colour
    /// type, …) and recomputes the chunk's CRC-32.
    mutating func setIHDRField(_ offset: Int, size: Int, to value: UInt64) {
        editHeadChunk(at: 8) { data in
            for byte in 0..<size { data[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - byte))) }
        }
    }

    /// Edits chunk `index`'s data, recomputes its CRC-32 and the footer's body length.
    mutating func editChunk(_ index: Int, _ edit: (inout [UInt8]) -> Void) {
        var data = Array(chunks[index][8..<(chunks[index].count - 4)])
        edit(&data)
        chunks[index] = Self.chunk(type: Array("IDAT".utf8), data: data)
        footer.bodyBytes = UInt64(chunks.reduce(0) { $0 + $1.count })
    }

    static func chunk(type: [UInt8], data: [UInt8]) -> [UInt8] {
        bigEndian(UInt32(data.count)) + type + data + bigEndian(crc32(type + data))
    }

    static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    /// CRC-32 as PNG and zlib compute it (polynomial 0xEDB88320), bit by bit: slow, but independent of mandel's.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
