import PNGShim
import Platform

/// Joins the part files of one picture into its PNG, byte for byte the PNG one machine
/// writes: the head from any part, every part's IDAT chunks in order, then the stream's
/// Adler-32 (combined from the parts') and IEND (docs/parts.md).
///
/// Every part's header and footer are checked before the output is touched; each chunk's
/// CRC-32 is checked as it is copied, in blocks of ``blockBytes``, so memory stays the same
/// whatever the picture's size. A part that fails a check stops the join, and the output,
/// written whole or not at all, is discarded; to a stream (standard output, a FIFO) the parts
/// are read through once to check them before anything is written.
public struct PartJoin {
    /// The parts, by their number.
    public let parts: [Part]

    /// One part file, its header and footer read and checked.
    public struct Part {
        /// The file.
        public let path: String
        /// Its header.
        public let header: PartHeader
        /// Its footer.
        public let footer: PartFooter
        /// Where its IDAT chunks begin.
        let bodyOffset: Int
    }

    /// Bytes copied at a time.
    static let blockBytes = 1 << 20

    /// Reads every part's header and footer and checks that they make one whole picture.
    ///
    /// - Throws: ``PartJoinError`` naming the first file that is wrong and why.
    public init(paths: [String]) throws(PartJoinError) {
        precondition(!paths.isEmpty, "a join of no files")
        var read: [Part] = []
        for path in paths { read.append(try Self.read(path)) }
        let first = read[0]
        for part in read.dropFirst() {
            if !part.header.isSamePicture(as: first.header) {
                throw .mismatched(
                    path: part.path, other: first.path, reason: Self.difference(part.header, first.header))
            }
            if part.header.partCount != first.header.partCount {
                throw .mismatched(
                    path: part.path, other: first.path,
                    reason: "one is a part of \(part.header.partCount), the other of \(first.header.partCount); "
                        + "join the parts of one cut")
            }
        }
        let count = Int(first.header.partCount)
        var byIndex = [Part?](repeating: nil, count: count)
        for part in read {
            let index = Int(part.header.partIndex)
            if let earlier = byIndex[index] {
                throw .duplicate(path: part.path, other: earlier.path, index: index, count: count)
            }
            byIndex[index] = part
        }
        let missing = byIndex.indices.filter { byIndex[$0] == nil }
        guard missing.isEmpty else { throw .missing(indices: missing, count: count) }
        parts = byIndex.map { $0! }
    }

    /// Writes the PNG to `output` (not committed: the caller puts it in place).
    ///
    /// - Parameter checkpoint: Called between chunks; what it throws stops the join.
    /// - Throws: ``PartJoinError`` for a part that fails its checks, ``ImageFileError`` for the output,
    ///   or what `checkpoint` throws.
    public func write(to output: OutputFile, checkpoint: () throws -> Void = {}) throws {
        if output.isStream {
            for part in parts { try copyBody(of: part, to: nil, checkpoint: checkpoint) }
        }
        let head = parts[0].header.pngHead
        try output.write(head)
        var adler: UInt32 = 1
        for part in parts {
            try copyBody(of: part, to: output, checkpoint: checkpoint)
            adler = mandel_adler32_combine(adler, part.footer.adler, Int(part.footer.filteredBytes))
        }
        try output.write(PNGWriter.chunk("IDAT", PNGWriter.bigEndian(adler)) + PNGWriter.chunk("IEND", []))
    }

    /// Bytes the parts' bodies hold: what a join copies.
    public var bodyBytes: UInt64 { parts.reduce(0) { $0 + $1.footer.bodyBytes } }

    // MARK: - Reading a part's header and footer

    private static func read(_ path: String) throws(PartJoinError) -> Part {
        let file = try PartInput(path: path)
        defer { file.close() }
        let magic = PartHeader.magic
        let start = try file.bytes(at: 0, count: 16)
        guard start.count >= magic.count, Array(start.prefix(magic.count)) == magic else {
            throw .notAPart(path: path, reason: "it does not begin with a part file's signature (\\x8BMPART)")
        }
        guard start.count == 16 else { throw .damaged(path: path, reason: "it ends inside its header (truncated)") }
        let version = PartBytes.word(start[...], at: 8)
        guard version == PartHeader.version else {
            throw .damaged(
                path: path,
                reason: "it is a part file of version \(version); this mandel reads version \(PartHeader.version)")
        }
        let headBytes = Int(PartBytes.word(start[...], at: 12))
        guard headBytes <= PartHeader.maximumHeadBytes else {
            throw .damaged(path: path, reason: "its header claims a \(headBytes)-byte PNG head (corrupted)")
        }
        let headerBytes = 16 + headBytes + PartHeader.fixedTailBytes
        let header = try file.bytes(at: 0, count: headerBytes)
        guard header.count == headerBytes else {
            throw .damaged(path: path, reason: "it ends inside its header (truncated)")
        }
        guard mandel_crc32(0, header, headerBytes - 4) == PartBytes.word(header[...], at: headerBytes - 4) else {
            throw .damaged(path: path, reason: "its header fails its CRC-32 (corrupted)")
        }
        let fields = header[(16 + headBytes)...]
        let parsed = PartHeader(
            pngHead: Array(header[16..<(16 + headBytes)]), level: fields[fields.startIndex],
            strategy: fields[fields.startIndex + 1], sliceRows: PartBytes.word(fields, at: 4),
            sliceCount: PartBytes.word(fields, at: 8), partCount: PartBytes.word(fields, at: 12),
            partIndex: PartBytes.word(fields, at: 16), firstSlice: PartBytes.word(fields, at: 20),
            endSlice: PartBytes.word(fields, at: 24))
        try check(parsed, path: path)
        let size = file.size
        guard size >= headerBytes + PartFooter.size else {
            throw .damaged(path: path, reason: "it ends before its footer (truncated)")
        }
        let tail = try file.bytes(at: size - PartFooter.size, count: PartFooter.size)
        guard tail.count == PartFooter.size, Array(tail.prefix(8)) == PartFooter.magic else {
            throw .damaged(
                path: path, reason: "it does not end with a part's footer (truncated, or written only in part)")
        }
        let footer = PartFooter(
            bodyBytes: PartBytes.long(tail[...], at: 8), filteredBytes: PartBytes.long(tail[...], at: 16),
            adler: PartBytes.word(tail[...], at: 24))
        let headerCRC = PartBytes.word(header[...], at: headerBytes - 4)
        guard footer.bytes(headerCRC: headerCRC) == tail else {
            throw .damaged(path: path, reason: "its footer fails its CRC-32 (corrupted, or another part's footer)")
        }
        guard UInt64(size) == UInt64(headerBytes) + footer.bodyBytes + UInt64(PartFooter.size) else {
            throw .damaged(
                path: path,
                reason:
                    "it is \(size) bytes, and its header and footer say \(UInt64(headerBytes) + footer.bodyBytes + 32)")
        }
        return Part(path: path, header: parsed, footer: footer, bodyOffset: headerBytes)
    }

    /// Checks that a header's numbers agree: its part's slices are the ones part K of N has.
    private static func check(_ header: PartHeader, path: String) throws(PartJoinError) {
        let (count, index) = (Int(header.partCount), Int(header.partIndex))
        let slices = Int(header.sliceCount)
        guard header.sliceRows > 0, count >= 1, index < count, count <= slices,
            header.firstSlice == UInt32(index * slices / count),
            header.endSlice == UInt32((index + 1) * slices / count),
            header.pngHead.count >= 33, header.pngHead.starts(with: [0x89, 0x50, 0x4E, 0x47])
        else {
            throw .damaged(path: path, reason: "its header's numbers disagree with each other")
        }
    }

    /// What differs between the pictures of two headers, in words.
    private static func difference(_ one: PartHeader, _ other: PartHeader) -> String {
        let (mine, theirs) = (texts(of: one.pngHead), texts(of: other.pngHead))
        if let key = Set(mine.keys).union(theirs.keys).sorted().first(where: { mine[$0] != theirs[$0] }) {
            return
                "they are parts of different pictures (\(key) \(mine[key] ?? "absent") against "
                + "\(theirs[key] ?? "absent"))"
        }
        if one.pngHead.prefix(33) != other.pngHead.prefix(33) {
            return "they are parts of different pictures (another size or pixel format)"
        }
        if one.level != other.level || one.strategy != other.strategy {
            return "they are parts of pictures compressed differently (--compression)"
        }
        return "they are parts of different pictures"
    }

    /// The text chunks of a PNG head, by keyword.
    private static func texts(of head: [UInt8]) -> [String: String] {
        var texts: [String: String] = [:]
        var offset = 8
        while offset + 12 <= head.count {
            let length = Int(PartBytes.word(head[...], at: offset))
            guard offset + 12 + length <= head.count else { break }
            if head[(offset + 4)..<(offset + 8)].elementsEqual("tEXt".utf8) {
                let data = head[(offset + 8)..<(offset + 8 + length)]
                if let zero = data.firstIndex(of: 0) {
                    texts[String(decoding: data[..<zero], as: UTF8.self)] = String(
                        decoding: data[(zero + 1)...], as: UTF8.self)
                }
            }
            offset += 12 + length
        }
        return texts
    }

    // MARK: - Copying

    /// Copies a part's IDAT chunks to `output` (or only reads them, when nil), checking each one's CRC-32.
    private func copyBody(of part: Part, to output: OutputFile?, checkpoint: () throws -> Void) throws {
        let file = try PartInput(path: part.path)
        defer { file.close() }
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockBytes, alignment: 16)
        defer { block.deallocate() }
        var offset = part.bodyOffset
        let end = part.bodyOffset + Int(part.footer.bodyBytes)
        var chunks = 0
        func damaged(_ reason: String) -> PartJoinError { .damaged(path: part.path, reason: reason) }
        while offset < end {
            try checkpoint()
            let top = try file.bytes(at: offset, count: 8)
            guard top.count == 8, end - offset >= 12 else { throw damaged("its chunks end early (truncated)") }
            let length = Int(PartBytes.word(top[...], at: 0))
            guard top[4..<8].elementsEqual("IDAT".utf8), length <= end - offset - 12 else {
                throw damaged("its chunk at byte \(offset) is not an image data chunk that fits (corrupted)")
            }
            var crc = mandel_crc32(0, Array(top[4..<8]), 4)
            try output?.write(top)
            var done = 0
            while done < length {
                let count = min(Self.blockBytes, length - done)
                let piece = UnsafeMutableRawBufferPointer(rebasing: block[0..<count])
                try file.read(into: piece, at: offset + 8 + done)
                crc = mandel_crc32(crc, piece.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
                try output?.write(UnsafeRawBufferPointer(piece))
                done += count
            }
            let stored = try file.bytes(at: offset + 8 + length, count: 4)
            guard stored.count == 4, PartBytes.word(stored[...], at: 0) == crc else {
                throw damaged("the CRC-32 of its chunk at byte \(offset) is wrong (corrupted)")
            }
            try output?.write(stored)
            offset += 12 + length
            chunks += 1
        }
        guard chunks == Int(part.header.endSlice - part.header.firstSlice) else {
            throw damaged("it holds \(chunks) chunks for \(part.header.endSlice - part.header.firstSlice) slices")
        }
    }
}
