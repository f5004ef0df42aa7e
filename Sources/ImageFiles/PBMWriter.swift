public import Platform

/// Writes a binary PBM (`P4`) bitmap row by row: the format of the Benchmarks Game "mandelbrot" task.
///
/// The header is `P4\n<width> <height>\n`; each row is `ceil(width / 8)` bytes,
/// most significant bit first, 1 for black, padding bits 0.
public final class PBMWriter {
    private let output: OutputFile
    /// Bytes in one row.
    private let bytesPerRow: Int

    /// Starts a bitmap in `output` and writes its header.
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``.
    public init(output: OutputFile, width: Int, height: Int) throws(ImageFileError) {
        self.output = output
        bytesPerRow = (width + 7) / 8
        let header = Array("P4\n\(width) \(height)\n".utf8)
        guard fwrite(header, 1, header.count, output.stream) == header.count else { throw Self.failure(output) }
    }

    /// Writes the next `count` rows of a PBM's own raster, `ceil(width / 8)` bytes each.
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``.
    public func write(bits: UnsafeBufferPointer<UInt8>, rows count: Int) throws(ImageFileError) {
        let bytes = bytesPerRow * count
        precondition(bits.count >= bytes, "ceil(width / 8) bytes per row")
        guard fwrite(bits.baseAddress, 1, bytes, output.stream) == bytes else { throw Self.failure(output) }
    }

    private static func failure(_ output: OutputFile) -> ImageFileError {
        output.writeFailure(errno: errno)
    }
}

extension PBMWriter: ImageEncoder {
    /// Starts a PBM: bilevel rows, written whole.
    public convenience init(output: OutputFile, picture: EncodedPicture) throws(ImageFileError) {
        precondition(picture.bitDepth == 1 && picture.part == nil, "a PBM is written whole, from bilevel pixels")
        try self.init(output: output, width: picture.width, height: picture.height)
    }

    /// A PBM has nothing to share out.
    public var rowsPerWrite: Int { 64 }
    /// A PBM is written on the calling thread.
    public var helperCPU: CPUTime { .zero }

    /// Writes the next `count` rows of the PBM's own raster.
    public func write(rows: UnsafeBufferPointer<UInt8>, count: Int) throws(ImageFileError) {
        try write(bits: rows, rows: count)
    }

    /// Nothing follows the last row.
    public func finish() throws(ImageFileError) {}

    /// Its exact size: the header and `ceil(width / 8)` bytes per row.
    public static func minimumBytes(for picture: EncodedPicture) -> Int {
        "P4\n\(picture.width) \(picture.height)\n".utf8.count + (picture.width + 7) / 8 * picture.height
    }

    /// Nothing beyond the caller's rows.
    public static func memoryNeeded(for picture: EncodedPicture) -> Int { 0 }
}
