import PNGShim

/// Reads one part file's header and footer and checks every field against the others and
/// against the file itself, before any of them sizes an allocation or enters arithmetic.
///
/// A part is untrusted input: each field can be edited and both CRC-32s recomputed. So the
/// PNG head is checked as a PNG checker would check it; the slices must cover the head's rows;
/// K and N must name a cut of those slices; the body's length must be the file's; and the
/// filtered bytes must be exactly what the part's rows hold. All arithmetic is on numbers
/// already bounded (32-bit fields in 64 bits, or checked for overflow).
enum PartReader {
    static func read(_ path: String) throws(PartJoinError) -> PartJoin.Part {
        let file = try PartInput(path: path)
        defer { file.close() }
        func damaged(_ reason: String) -> PartJoinError { .damaged(path: path, reason: reason) }
        let magic = PartHeader.magic
        let start = try file.bytes(at: 0, count: 16)
        guard start.count >= magic.count, Array(start.prefix(magic.count)) == magic else {
            throw .notAPart(path: path, reason: "it does not begin with a part file's signature (\\x8BMPART)")
        }
        guard start.count == 16 else { throw damaged("it ends inside its header (truncated)") }
        let version = PartBytes.word(start[...], at: 8)
        guard version == PartHeader.version else {
            throw damaged("it is a part file of version \(version); this mandel reads version \(PartHeader.version)")
        }
        let headBytes = Int(PartBytes.word(start[...], at: 12))
        guard headBytes <= PartHeader.maximumHeadBytes else {
            throw damaged(
                "its header claims a \(headBytes)-byte PNG head, and a head has at most "
                    + "\(PartHeader.maximumHeadBytes) (corrupted)")
        }
        let headerBytes = 16 + headBytes + PartHeader.fixedTailBytes
        guard file.size >= headerBytes else { throw damaged("it ends inside its header (truncated)") }
        let header = try file.bytes(at: 0, count: headerBytes)
        guard header.count == headerBytes else { throw damaged("it ends inside its header (truncated)") }
        guard mandel_crc32(0, header, headerBytes - 4) == PartBytes.word(header[...], at: headerBytes - 4) else {
            throw damaged("its header fails its CRC-32 (corrupted)")
        }
        let fields = header[(16 + headBytes)...]
        let parsed = PartHeader(
            pngHead: Array(header[16..<(16 + headBytes)]), level: fields[fields.startIndex],
            strategy: fields[fields.startIndex + 1], sliceRows: PartBytes.word(fields, at: 4),
            sliceCount: PartBytes.word(fields, at: 8), partCount: PartBytes.word(fields, at: 12),
            partIndex: PartBytes.word(fields, at: 16), firstSlice: PartBytes.word(fields, at: 20),
            endSlice: PartBytes.word(fields, at: 24))
        let head: PNGHead
        do { head = try PNGHead(parsing: parsed.pngHead) } catch { throw damaged(error.reason + " (corrupted)") }
        let filteredBytes = try check(parsed, head: head, path: path)
        let size = file.size
        guard size >= headerBytes + PartFooter.size else { throw damaged("it ends before its footer (truncated)") }
        let tail = try file.bytes(at: size - PartFooter.size, count: PartFooter.size)
        guard tail.count == PartFooter.size, Array(tail.prefix(8)) == PartFooter.magic else {
            throw damaged("it does not end with a part's footer (truncated, or written only in part)")
        }
        let footer = PartFooter(
            bodyBytes: PartBytes.long(tail[...], at: 8), filteredBytes: PartBytes.long(tail[...], at: 16),
            adler: PartBytes.word(tail[...], at: 24))
        let headerCRC = PartBytes.word(header[...], at: headerBytes - 4)
        guard footer.bytes(headerCRC: headerCRC) == tail else {
            throw damaged("its footer fails its CRC-32 (corrupted, or another part's footer)")
        }
        // Subtracted from the size, never added to: the footer's numbers may be anything.
        let body = UInt64(size - headerBytes - PartFooter.size)
        guard footer.bodyBytes == body else {
            throw damaged("its footer says \(footer.bodyBytes) bytes of chunks, and the file holds \(body) (corrupted)")
        }
        guard footer.filteredBytes == filteredBytes else {
            throw damaged(
                "its footer says its rows inflate to \(footer.filteredBytes) bytes, and its rows hold "
                    + "\(filteredBytes) (corrupted)")
        }
        return PartJoin.Part(path: path, header: parsed, head: head, footer: footer, bodyOffset: headerBytes)
    }

    /// Checks that a header's numbers agree with its head and with each other: its slices cover
    /// the picture's rows, and its part's slices are the ones part K of N has. Returns the bytes
    /// its rows hold, filtered.
    private static func check(_ header: PartHeader, head: PNGHead, path: String) throws(PartJoinError) -> UInt64 {
        func damaged(_ reason: String) -> PartJoinError { .damaged(path: path, reason: reason + " (corrupted)") }
        // Every field is a UInt32 and the height below 2^31: no sum or product below overflows 64 bits.
        let rows = UInt64(head.height)
        let (sliceRows, slices) = (UInt64(header.sliceRows), UInt64(header.sliceCount))
        guard (1...rows).contains(sliceRows), slices == (rows + sliceRows - 1) / sliceRows else {
            throw damaged(
                "its header says \(slices) slices of \(sliceRows) rows, and its PNG head \(rows) rows (slices of "
                    + "1 to \(rows) rows, as many as cover them)")
        }
        let (count, index) = (UInt64(header.partCount), UInt64(header.partIndex))
        guard (1...slices).contains(count), index < count else {
            throw damaged(
                "its header says part \(index) of \(count), and a picture of \(slices) slices has 1 to \(slices) "
                    + "parts, numbered from 0")
        }
        let (first, end) = (index * slices / count, (index + 1) * slices / count)
        guard UInt64(header.firstSlice) == first, UInt64(header.endSlice) == end else {
            throw damaged(
                "its header says slices \(header.firstSlice) to \(header.endSlice), and part \(index) of \(count) "
                    + "has slices \(first) to \(end)")
        }
        let partRows = min(end * sliceRows, rows) - first * sliceRows
        // Below 2^63, so that every later count of them is an Int (a real part is far smaller).
        let (bytes, overflow) = partRows.multipliedReportingOverflow(by: UInt64(head.filteredRowBytes))
        guard !overflow, bytes <= UInt64(Int.max) else {
            throw damaged("its \(partRows) rows of \(head.filteredRowBytes) bytes hold more than 2^63 bytes")
        }
        return bytes
    }
}
