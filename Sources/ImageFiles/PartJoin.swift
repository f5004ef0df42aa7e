import PNGShim
import Platform

/// Joins the part files of one picture into its PNG, byte for byte the PNG one machine
/// writes: the head from any part, every part's IDAT chunks in order, then the stream's
/// Adler-32 (combined from the parts') and IEND (docs/parts.md).
///
/// Every part's header and footer are checked before the output is touched (``PartReader``);
/// each chunk's CRC-32 is checked as it is copied, in blocks of ``blockBytes``, and the chunks
/// are inflated and thrown away as they go by (``PartStreamCheck``), so memory stays the same
/// whatever the picture's size or the numbers a part states. A part that fails a check stops
/// the join, and the output, written whole or not at all, is discarded; to a stream (standard
/// output, a FIFO) the parts are read through once to check them before anything is written.
public struct PartJoin {
    /// The parts, by their number.
    public let parts: [Part]

    /// One part file, its header and footer read and checked.
    public struct Part {
        /// The file.
        public let path: String
        /// Its header.
        public let header: PartHeader
        /// Its PNG head, read.
        let head: PNGHead
        /// Its footer.
        public let footer: PartFooter
        /// Where its IDAT chunks begin.
        let bodyOffset: Int
    }

    /// Bytes copied at a time.
    static let blockBytes = 1 << 20

    /// Reads every part's header and footer and checks that they make one whole picture.
    ///
    /// Nothing here grows with the numbers the parts state, only with the files given: a part
    /// that says it is one of 4,294,967,295 costs what one of 3 does.
    ///
    /// - Throws: ``PartJoinError`` naming the first file that is wrong and why.
    public init(paths: [String]) throws(PartJoinError) {
        precondition(!paths.isEmpty, "a join of no files")
        var read: [Part] = []
        for path in paths { read.append(try PartReader.read(path)) }
        let first = read[0]
        for part in read.dropFirst() {
            if !part.header.isSamePicture(as: first.header) {
                throw .mismatched(path: part.path, other: first.path, reason: Self.difference(part, first))
            }
            if part.header.partCount != first.header.partCount {
                throw .mismatched(
                    path: part.path, other: first.path,
                    reason: "one is a part of \(part.header.partCount), the other of \(first.header.partCount); "
                        + "join the parts of one cut")
            }
        }
        let count = Int(first.header.partCount)
        var byIndex: [Int: Part] = [:]
        for part in read {
            let index = Int(part.header.partIndex)
            if let earlier = byIndex[index] {
                throw .duplicate(path: part.path, other: earlier.path, index: index, count: count)
            }
            byIndex[index] = part
        }
        guard byIndex.count == count else {
            // The first few missing numbers, found without a list as long as N.
            let shown = (0..<count).lazy.filter { byIndex[$0] == nil }.prefix(PartJoinError.missingShown)
            throw .missing(indices: Array(shown), total: count - byIndex.count, count: count)
        }
        parts = (0..<count).map { byIndex[$0]! }
    }

    /// The size of the PNG a join writes: the head, the parts' chunks, the Adler-32's chunk and IEND.
    public var outputBytes: Int { parts[0].header.pngHead.count + Int(bodyBytes) + 16 + 12 }

    /// Writes the PNG to `output` (not committed: the caller puts it in place).
    ///
    /// - Parameter checkpoint: Called between chunks; what it throws stops the join.
    /// - Throws: ``PartJoinError`` for a part that fails its checks, ``ImageFileError`` for the output,
    ///   or what `checkpoint` throws.
    public func write(to output: OutputFile, checkpoint: () throws -> Void = {}) throws {
        if output.isStream { _ = try copyBodies(to: nil, checkpoint: checkpoint) }
        try output.write(parts[0].header.pngHead)
        let adler = try copyBodies(to: output, checkpoint: checkpoint)
        try output.write(PNGWriter.chunk("IDAT", PNGWriter.bigEndian(adler)) + PNGWriter.chunk("IEND", []))
    }

    /// Bytes the parts' bodies hold: what a join copies (each checked against its file's size).
    public var bodyBytes: UInt64 { parts.reduce(0) { $0 + $1.footer.bodyBytes } }

    /// What differs between the pictures of two parts, in words.
    private static func difference(_ one: Part, _ other: Part) -> String {
        let (mine, theirs) = (one.head.texts, other.head.texts)
        if let key = Set(mine.keys).union(theirs.keys).sorted().first(where: { mine[$0] != theirs[$0] }) {
            return
                "they are parts of different pictures (\(key) \(mine[key] ?? "absent") against "
                + "\(theirs[key] ?? "absent"))"
        }
        if one.header.pngHead.prefix(33) != other.header.pngHead.prefix(33) {
            return "they are parts of different pictures (another size or pixel format)"
        }
        if one.header.level != other.header.level || one.header.strategy != other.header.strategy {
            return "they are parts of pictures compressed differently (--compression)"
        }
        return "they are parts of different pictures"
    }

    // MARK: - Copying

    /// Copies every part's chunks in order to `output` (or only reads them, when nil), checking
    /// them and the stream they make; returns the stream's Adler-32.
    private func copyBodies(to output: OutputFile?, checkpoint: () throws -> Void) throws -> UInt32 {
        let head = parts[0].head
        let (total, _) = UInt64(head.height).multipliedReportingOverflow(by: UInt64(head.filteredRowBytes))
        let stream = try PartStreamCheck(rowBytes: head.filteredRowBytes, total: total)
        var adler: UInt32 = 1
        for part in parts {
            try copyBody(of: part, to: output, stream: stream, checkpoint: checkpoint)
            try stream.endPart(part)
            adler = mandel_adler32_combine(adler, part.footer.adler, Int(part.footer.filteredBytes))
        }
        try stream.finish(adler: adler, lastPart: parts[parts.count - 1])
        return adler
    }

    /// Copies a part's IDAT chunks to `output` (or only reads them, when nil), checking each one's
    /// CRC-32 and feeding its data to `stream`.
    private func copyBody(
        of part: Part, to output: OutputFile?, stream: PartStreamCheck, checkpoint: () throws -> Void
    ) throws {
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
            // A chunk's CRC-32 is checked before what its data inflated to is judged: a flipped
            // bit is named as the CRC's failure, not as the stream's.
            var streamFailure: PartJoinError?
            var done = 0
            while done < length {
                let count = min(Self.blockBytes, length - done)
                let piece = UnsafeMutableRawBufferPointer(rebasing: block[0..<count])
                try file.read(into: piece, at: offset + 8 + done)
                crc = mandel_crc32(crc, piece.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
                if streamFailure == nil {
                    do throws(PartJoinError) { try stream.feed(UnsafeRawBufferPointer(piece), of: part) } catch {
                        streamFailure = error
                    }
                }
                try output?.write(UnsafeRawBufferPointer(piece))
                done += count
            }
            let stored = try file.bytes(at: offset + 8 + length, count: 4)
            guard stored.count == 4, PartBytes.word(stored[...], at: 0) == crc else {
                throw damaged("the CRC-32 of its chunk at byte \(offset) is wrong (corrupted)")
            }
            if let streamFailure { throw streamFailure }
            try output?.write(stored)
            offset += 12 + length
            chunks += 1
        }
        let slices = Int(part.header.endSlice) - Int(part.header.firstSlice)
        guard chunks == slices else { throw damaged("it holds \(chunks) chunks for \(slices) slices (corrupted)") }
    }
}
