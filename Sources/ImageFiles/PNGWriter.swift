import PNGShim
import Platform

/// Writes an 8-bit gray or RGB PNG row by row through libpng, with text chunks saying how it was made.
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

    private let writer: OpaquePointer
    private let output: OutputFile
    /// Bytes in one row.
    public let bytesPerRow: Int

    /// Starts a PNG in `output` and writes its header and text chunks.
    ///
    /// - Parameters:
    ///   - output: The destination.
    ///   - width: Pixels per row.
    ///   - height: Rows.
    ///   - channels: 1 (gray) or 3 (RGB); traps otherwise.
    ///   - bitDepth: 8, or 1 for gray rows packed eight pixels to a byte, 1 for black (a PBM's raster).
    ///   - compression: How hard the encoder works; ``PNGCompression/balanced`` by default.
    ///   - texts: The text chunks, in order.
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)`` if libpng refuses.
    public init(
        output: OutputFile, width: Int, height: Int, channels: Int, bitDepth: Int = 8,
        compression: PNGCompression = .balanced, texts: [TextChunk]
    ) throws(ImageFileError) {
        precondition(channels == 1 || channels == 3, "a PNG pixel here has 1 or 3 channels")
        precondition(bitDepth == 8 || (bitDepth == 1 && channels == 1), "a PNG here is 8-bit, or 1-bit gray")
        self.output = output
        self.bytesPerRow = bitDepth == 1 ? (width + 7) / 8 : width * channels
        var message = [CChar](repeating: 0, count: 256)
        let created: OpaquePointer? = withTextChunks(texts) { chunks in
            mandel_png_writer_create(
                output.stream, UInt32(width), UInt32(height), Int32(channels), Int32(bitDepth), compression.shimValue,
                chunks.baseAddress, chunks.count, &message, message.count)
        }
        guard let created else {
            throw .writeFailed(path: output.path, reason: String(nulTerminated: message))
        }
        writer = created
    }

    deinit { mandel_png_writer_destroy(writer) }

    /// Writes the next rows, `bytesPerRow` apart in `rows`.
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``.
    public func write(rows: UnsafeBufferPointer<UInt8>, count: Int) throws(ImageFileError) {
        precondition(rows.count >= count * bytesPerRow, "fewer bytes than rows")
        errno = 0
        guard mandel_png_writer_write_rows(writer, rows.baseAddress, bytesPerRow, UInt32(count)) == 0 else {
            throw failure()
        }
    }

    /// Writes the end of the image and flushes it.
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``.
    public func finish() throws(ImageFileError) {
        errno = 0
        guard mandel_png_writer_finish(writer) == 0 else { throw failure() }
    }

    /// The failure's real cause when the system gave one (a full disk, a closed pipe), otherwise libpng's words.
    private func failure() -> ImageFileError {
        errno != 0
            ? output.writeFailure(errno: errno)
            : .writeFailed(path: output.path, reason: String(cString: mandel_png_writer_error(writer)))
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

    var shimValue: mandel_png_compression {
        switch self {
        case .fast: MANDEL_PNG_FAST
        case .balanced: MANDEL_PNG_BALANCED
        case .small: MANDEL_PNG_SMALL
        }
    }
}

/// Calls `body` with C views of `texts` that live as long as the call.
private func withTextChunks<Result>(
    _ texts: [PNGWriter.TextChunk], _ body: (UnsafeBufferPointer<mandel_png_text>) -> Result
) -> Result {
    let keys = texts.map { strdup($0.key)! }
    let values = texts.map { strdup($0.text)! }
    defer {
        keys.forEach { free($0) }
        values.forEach { free($0) }
    }
    let chunks = zip(keys, values).map { mandel_png_text(key: $0, text: $1) }
    return chunks.withUnsafeBufferPointer(body)
}
