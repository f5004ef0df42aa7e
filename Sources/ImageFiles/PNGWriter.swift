import Dispatch
import PNGShim
public import Platform

/// Writes a PNG row by row (8-bit gray or RGB, or 1-bit gray), with text chunks saying
/// how it was made, compressing slices of rows on several threads at once.
///
/// Every row gets the Sub filter. The image is cut into slices of ``sliceRows`` rows
/// (about a quarter of a megabyte); rows are copied into a staging buffer as they come,
/// and once it holds ``rowsPerWrite`` of them up to ``workers`` threads filter and
/// deflate its whole slices at the same time, each with the 32 KiB of filtered data
/// before its slice as the dictionary and ending with a sync flush (the last with a
/// finish), so the pieces, written in order as IDAT chunks, are one zlib stream: the
/// way pigz works. The stream's Adler-32 is joined from the slices' with
/// `adler32_combine`. zlib does the compressing. The file depends only on the pixels
/// and the slice size: not on the worker count, nor on how the rows were handed over.
///
/// Given a part (K of N), it writes a part file instead: the same IDAT chunks for the
/// part's slices (see ``SliceGrid``), between a ``PartHeader`` and a ``PartFooter``, so
/// that joining the parts is copying them (``PartJoin``).
public final class PNGWriter {
    /// One `tEXt` chunk.
    public struct TextChunk: Sendable, Equatable {
        /// The keyword: 1 to 79 Latin-1 characters.
        public var key: String
        /// The text.
        public var text: String

        /// Creates a chunk.
        public init(key: String, text: String) {
            self.key = key
            self.text = text
        }
    }

    private let output: OutputFile
    private let height: Int
    /// The rows of the picture this writer takes, in order: all of them, or a part's.
    public let rowsExpected: Range<Int>
    /// The first row compressed; the rows before it in ``rowsExpected`` are its dictionary.
    private let firstCompressedRow: Int
    /// Whether this is a part file: no IEND, and the stream's Adler-32 left to the join.
    private let part: PartHeader?
    private var headerCRC: UInt32 = 0
    private var bodyBytes: UInt64 = 0
    private var filteredBytes: UInt64 = 0
    private let bytesPerPixel: Int
    /// Whether rows are inverted on the way: a bilevel row's 1 is black, a PNG's 0 is.
    private let inverts: Bool
    private let settings: mandel_deflate_settings
    /// Bytes in one row.
    public let bytesPerRow: Int
    /// The most slices compressed at once.
    public let workers: Int
    /// Rows per slice: about ``sliceBytes`` of pixels, at least one row (see ``SliceGrid``).
    public let sliceRows: Int
    private var rowsWritten = 0
    private var adler: UInt32 = 1
    private var startedStream = false
    /// Rows waiting for their slice, after the rows kept before them for the dictionary.
    private let staging: UnsafeMutableBufferPointer<UInt8>
    /// The rows a dictionary needs: enough to fill the 32 KiB window, at least one.
    private let windowRows: Int
    private var keptRows = 0
    private var stagedRows = 0
    /// Processor time the slices took on threads other than the writing one.
    public private(set) var helperCPU = CPUTime.zero

    /// The default slice: big enough that the 32 KiB dictionary and the flush cost little, small
    /// enough that a band of a wide picture still makes a slice per worker.
    public static let defaultSliceBytes = 256 * 1024

    /// Starts a PNG in `output` and writes its signature, header and text chunks.
    ///
    /// - Parameters:
    ///   - output: The destination.
    ///   - width: Pixels per row.
    ///   - height: Rows.
    ///   - channels: 1 (gray) or 3 (RGB); traps otherwise.
    ///   - bitDepth: 8, or 1 for gray rows packed eight pixels to a byte, 1 for black (a PBM's raster).
    ///   - compression: How hard the encoder works; ``PNGCompression/balanced`` by default.
    ///   - texts: The text chunks, in order.
    ///   - workers: The most threads compressing at once; 1 compresses on the calling thread.
    ///   - sliceBytes: Pixel bytes per slice (rounded to whole rows).
    ///   - part: Part K of N (traps unless `0 ≤ K < N ≤` the slices), written as a part file, or nil for the PNG.
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)`` if the header cannot be written.
    public init(
        output: OutputFile, width: Int, height: Int, channels: Int, bitDepth: Int = 8,
        compression: PNGCompression = .balanced, texts: [TextChunk], workers: Int = 1,
        sliceBytes: Int = PNGWriter.defaultSliceBytes, part: (index: Int, count: Int)? = nil
    ) throws(ImageFileError) {
        precondition(channels == 1 || channels == 3, "a PNG pixel here has 1 or 3 channels")
        precondition(bitDepth == 8 || (bitDepth == 1 && channels == 1), "a PNG here is 8-bit, or 1-bit gray")
        precondition(width > 0 && height > 0 && width < 1 << 31 && height < 1 << 31, "a PNG side is 1 to 2^31 - 1")
        precondition(workers >= 1 && sliceBytes >= 1, "at least one worker and one byte per slice")
        self.output = output
        self.height = height
        bytesPerRow = bitDepth == 1 ? (width + 7) / 8 : width * channels
        bytesPerPixel = bitDepth == 1 ? 1 : channels
        inverts = bitDepth == 1
        settings = compression.settings
        self.workers = workers
        let grid = SliceGrid(height: height, bytesPerRow: bytesPerRow, sliceBytes: sliceBytes)
        sliceRows = grid.sliceRows
        windowRows = grid.windowRows
        staging = .allocate(
            capacity: Self.stagingRows(sliceRows: sliceRows, windowRows: windowRows, workers: workers) * bytesPerRow)
        var head = [UInt8]()
        var header = Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height))
        // Bit depth, colour type (0 gray, 2 RGB), compression, filter method, no interlace.
        header += [UInt8(bitDepth), channels == 1 ? 0 : 2, 0, 0, 0]
        head += [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Self.chunk("IHDR", header)
        for text in texts {
            let key = Array(text.key.utf8)
            precondition((1...79).contains(key.count) && !key.contains(0), "a tEXt keyword is 1 to 79 bytes")
            head += Self.chunk("tEXt", key + [0] + Array(text.text.utf8))
        }
        guard let (index, count) = part else {
            rowsExpected = 0..<height
            firstCompressedRow = 0
            self.part = nil
            try writeBytes(head)
            return
        }
        let slices = grid.slices(ofPart: index, of: count)
        rowsExpected = grid.rowsRendered(for: slices)
        firstCompressedRow = grid.rows(of: slices).lowerBound
        // The stream has begun before a later part's first slice: its zlib header is in part 0.
        startedStream = slices.lowerBound > 0
        let partHeader = PartHeader(
            pngHead: head, level: UInt8(settings.level), strategy: UInt8(settings.strategy),
            sliceRows: UInt32(sliceRows), sliceCount: UInt32(grid.sliceCount), partCount: UInt32(count),
            partIndex: UInt32(index), firstSlice: UInt32(slices.lowerBound), endSlice: UInt32(slices.upperBound))
        self.part = partHeader
        let bytes = partHeader.bytes
        headerCRC = PartBytes.word(bytes[...], at: bytes.count - 4)
        try writeBytes(bytes)
    }

    deinit { staging.deallocate() }

    /// Rows compressed at once: two slices for each worker.
    public var rowsPerWrite: Int { sliceRows * workers * 2 }

    private static func stagingRows(sliceRows: Int, windowRows: Int, workers: Int) -> Int {
        windowRows + sliceRows * (workers * 2 + 1)
    }

    /// The memory a writer of these rows keeps besides the caller's: its staging buffer.
    public static func memoryNeeded(
        width: Int, channels: Int, bitDepth: Int = 8, workers: Int, sliceBytes: Int = defaultSliceBytes
    ) -> Int {
        let rowBytes = bitDepth == 1 ? (width + 7) / 8 : width * channels
        let rows = stagingRows(
            sliceRows: max(1, sliceBytes / rowBytes),
            windowRows: (Int(MANDEL_DEFLATE_WINDOW) + rowBytes) / (rowBytes + 1),
            workers: workers)
        let (bytes, overflow) = rows.multipliedReportingOverflow(by: rowBytes)
        return overflow ? .max : bytes
    }

    /// Takes the next rows, `bytesPerRow` apart in `rows`, and compresses and writes every
    /// whole slice once enough are staged (all of them with the image's last row).
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``.
    public func write(rows: UnsafeBufferPointer<UInt8>, count: Int) throws(ImageFileError) {
        precondition(rows.count >= count * bytesPerRow, "fewer bytes than rows")
        guard count <= rowsExpected.count - rowsWritten else {
            throw .writeFailed(path: output.path, reason: "more rows than the image has")
        }
        let capacity = staging.count / bytesPerRow
        var taken = 0
        // A part's first rows are only its first slice's dictionary: kept, never compressed.
        let dictionaryRows = firstCompressedRow - rowsExpected.lowerBound
        if rowsWritten < dictionaryRows {
            let take = min(count, dictionaryRows - rowsWritten)
            UnsafeMutableRawPointer(staging.baseAddress! + keptRows * bytesPerRow).copyMemory(
                from: rows.baseAddress!, byteCount: take * bytesPerRow)
            keptRows += take
            taken += take
            rowsWritten += take
        }
        while taken < count {
            let take = min(count - taken, capacity - keptRows - stagedRows)
            UnsafeMutableRawPointer(staging.baseAddress! + (keptRows + stagedRows) * bytesPerRow).copyMemory(
                from: rows.baseAddress! + taken * bytesPerRow, byteCount: take * bytesPerRow)
            stagedRows += take
            taken += take
            rowsWritten += take
            let endsRows = rowsWritten == rowsExpected.count
            if stagedRows >= rowsPerWrite || endsRows { try compressStaged(endsRows: endsRows) }
        }
    }

    /// Compresses the staged whole slices (every staged row at the end of the rows expected),
    /// writes them, and keeps the rows the next dictionary needs and the rows of an unfinished slice.
    private func compressStaged(endsRows: Bool) throws(ImageFileError) {
        let endsImage = endsRows && rowsExpected.upperBound == height
        let rows = endsRows ? stagedRows : stagedRows / sliceRows * sliceRows
        guard rows > 0 else { return }
        let slices = (rows + sliceRows - 1) / sliceRows
        let pieces = UnsafeMutableBufferPointer<mandel_deflated_slice>.allocate(capacity: slices)
        let failures = UnsafeMutableBufferPointer<String?>.allocate(capacity: slices)
        pieces.initialize(repeating: mandel_deflated_slice())
        failures.initialize(repeating: nil)
        defer {
            for index in 0..<slices { mandel_deflated_slice_free(&pieces[index]) }
            pieces.deallocate()
            failures.deinitialize().deallocate()
        }
        let job = SliceJob(
            first: UnsafePointer(staging.baseAddress! + keptRows * bytesPerRow), count: rows, rowsBefore: keptRows,
            windowRows: windowRows, sliceRows: sliceRows, bytesPerRow: bytesPerRow, bytesPerPixel: bytesPerPixel,
            inverts: inverts, settings: settings, endsImage: endsImage, pieces: pieces, failures: failures)
        let threads = min(workers, slices)
        if threads == 1 {
            for slice in 0..<slices { job.compress(slice) }
        } else {
            // Each thread takes every `threads`-th slice: the slices are the same size. The caller
            // takes part (so the work gets done even when every pool thread is busy); what the
            // others spend is counted, so that a report can charge it to the encoder.
            let caller = SystemThread.current
            let spent = UnsafeMutableBufferPointer<CPUTime>.allocate(capacity: threads)
            spent.initialize(repeating: .zero)
            defer { spent.deallocate() }
            let spentOnHelpers = HelperTimes(times: spent)
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                let start = CPUTime.currentThread()
                for slice in stride(from: thread, to: slices, by: threads) { job.compress(slice) }
                if SystemThread.current != caller {
                    spentOnHelpers.times[thread] = CPUTime.currentThread().since(start)
                }
            }
            helperCPU = spent.reduce(helperCPU) { $0.adding($1) }
        }
        if let reason = failures.lazy.compactMap({ $0 }).first {
            throw .writeFailed(path: output.path, reason: reason)
        }
        for index in 0..<slices {
            let piece = UnsafeBufferPointer(start: pieces[index].data, count: pieces[index].size)
            if !startedStream {
                startedStream = true
                try writeChunk("IDAT", Self.zlibHeader(level: settings.level) + Array(piece))
            } else {
                try writeChunk("IDAT", piece)
            }
            adler = mandel_adler32_combine(adler, pieces[index].adler, pieces[index].filtered_size)
            filteredBytes += UInt64(pieces[index].filtered_size)
        }
        if endsImage && part == nil { try writeChunk("IDAT", Self.bigEndian(adler)) }
        // Keep the last rows compressed, for the next slice's dictionary, and the rows left over.
        let kept = min(windowRows, keptRows + rows)
        let leftover = stagedRows - rows
        let from = staging.baseAddress! + (keptRows + rows - kept) * bytesPerRow
        UnsafeMutableRawPointer(staging.baseAddress!).copyMemory(from: from, byteCount: (kept + leftover) * bytesPerRow)
        keptRows = kept
        stagedRows = leftover
    }

    /// Writes the end of the image.
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``, also when rows are missing.
    public func finish() throws(ImageFileError) {
        guard rowsWritten == rowsExpected.count else {
            throw .writeFailed(
                path: output.path, reason: "the image ended after \(rowsWritten) of \(rowsExpected.count) rows")
        }
        guard part != nil else { return try writeChunk("IEND", []) }
        let footer = PartFooter(bodyBytes: bodyBytes, filteredBytes: filteredBytes, adler: adler)
        try writeBytes(footer.bytes(headerCRC: headerCRC))
    }

    // MARK: - Chunks

    private func writeChunk(_ type: String, _ data: [UInt8]) throws(ImageFileError) {
        try data.withUnsafeBufferPointer { bytes throws(ImageFileError) in try writeChunk(type, bytes) }
    }

    /// A chunk: its length, its type, its data and the CRC-32 of type and data.
    private func writeChunk(_ type: String, _ data: UnsafeBufferPointer<UInt8>) throws(ImageFileError) {
        let name = Array(type.utf8)
        var crc = mandel_crc32(0, name, name.count)
        if data.count > 0 { crc = mandel_crc32(crc, data.baseAddress, data.count) }
        try writeBytes(Self.bigEndian(UInt32(data.count)) + name)
        if data.count > 0 { try writeBytes(data) }
        try writeBytes(Self.bigEndian(crc))
        bodyBytes += UInt64(data.count + 12)
    }

    /// A chunk's bytes.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(mandel_crc32(0, body, body.count))
    }

    private func writeBytes(_ bytes: [UInt8]) throws(ImageFileError) {
        try bytes.withUnsafeBufferPointer { buffer throws(ImageFileError) in try writeBytes(buffer) }
    }

    private func writeBytes(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImageFileError) {
        errno = 0
        guard fwrite(bytes.baseAddress, 1, bytes.count, output.stream) == bytes.count else {
            throw output.writeFailure(errno: errno)
        }
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// CMF 0x78 (deflate, 32 KiB window), then FLG: the level class in its top bits and a check
    /// that makes `CMF·256 + FLG` a multiple of 31.
    static func zlibHeader(level: Int32) -> [UInt8] {
        let levelClass: UInt16 = level <= 1 ? 0 : level <= 5 ? 1 : level == 6 ? 2 : 3
        let partial = 0x78 << 8 | levelClass << 6
        let check = (31 - partial % 31) % 31
        return [0x78, UInt8(levelClass << 6 | check)]
    }
}

/// Each helper thread's processor time, one entry per thread.
private struct HelperTimes: @unchecked Sendable {
    // @unchecked: each concurrentPerform iteration writes only its own entry.
    let times: UnsafeMutableBufferPointer<CPUTime>
}

/// The staged slices of one compression: where they are and where their pieces go. Each
/// slice is compressed by one thread, which writes only its own entries of `pieces` and `failures`.
private struct SliceJob: @unchecked Sendable {
    // @unchecked: the pointers are read-only rows, or entries that exactly one thread writes.
    /// The first row of the first slice; `rowsBefore` rows before it are in memory too.
    let first: UnsafePointer<UInt8>
    let count: Int
    let rowsBefore: Int
    let windowRows: Int
    let sliceRows: Int
    let bytesPerRow: Int
    let bytesPerPixel: Int
    let inverts: Bool
    let settings: mandel_deflate_settings
    let endsImage: Bool
    let pieces: UnsafeMutableBufferPointer<mandel_deflated_slice>
    let failures: UnsafeMutableBufferPointer<String?>

    func compress(_ slice: Int) {
        let top = slice * sliceRows
        let rowCount = min(sliceRows, count - top)
        let previous = min(rowsBefore + top, windowRows)
        let finish = endsImage && top + rowCount == count
        var message = [CChar](repeating: 0, count: 256)
        let status = mandel_deflate_slice(
            first + top * bytesPerRow, UInt32(rowCount), bytesPerRow, bytesPerPixel, inverts ? 1 : 0, UInt32(previous),
            settings, finish ? 1 : 0, &pieces[slice], &message, message.count)
        if status != 0 { failures[slice] = String(nulTerminated: message) }
    }
}

/// How hard the PNG encoder works: encoding time against file size.
public enum PNGCompression: String, Sendable, CaseIterable {
    /// The Sub filter and zlib's run-length strategy: about 3× faster than balanced, 20–90% larger.
    case fast
    /// The Sub filter at zlib level 6: as small as libpng's adaptive default on these pictures, and 1.2–3.5× faster.
    case balanced
    /// The Sub filter at zlib level 9: 5–15% smaller than balanced, 4–6× slower.
    case small

    /// zlib's level and strategy. Filtered data gets `Z_FILTERED`, as libpng gives it.
    var settings: mandel_deflate_settings {
        switch self {
        case .fast: mandel_deflate_settings(level: 6, strategy: 3)  // Z_RLE
        case .balanced: mandel_deflate_settings(level: 6, strategy: 1)  // Z_FILTERED
        case .small: mandel_deflate_settings(level: 9, strategy: 1)
        }
    }
}

extension PNGWriter: ImageEncoder {
    /// Starts a PNG with the picture's chunks, compression, workers and part.
    public convenience init(output: OutputFile, picture: EncodedPicture) throws(ImageFileError) {
        try self.init(
            output: output, width: picture.width, height: picture.height, channels: picture.channels,
            bitDepth: picture.bitDepth, compression: picture.compression, texts: picture.texts,
            workers: picture.workers, part: picture.part)
    }

    /// The deflate format's limit of about 1032 bytes of input per byte of output, plus the chunks.
    public static func minimumBytes(for picture: EncodedPicture) -> Int {
        // Each row is preceded by its filter byte.
        let bytesPerRow = picture.bitDepth == 1 ? (picture.width + 7) / 8 : picture.width * picture.channels
        let raw = (bytesPerRow + 1).multipliedReportingOverflow(by: picture.height)
        return raw.overflow ? Int.max : raw.partialValue / 1032 + 1024
    }

    /// The rows it stages for its slices.
    public static func memoryNeeded(for picture: EncodedPicture) -> Int {
        memoryNeeded(
            width: picture.width, channels: picture.channels, bitDepth: picture.bitDepth, workers: picture.workers)
    }
}
