import Platform

/// Writes a binary PBM (`P4`) bitmap row by row: the format of the Benchmarks Game "mandelbrot" task.
///
/// The header is `P4\n<width> <height>\n`; each row is `ceil(width / 8)` bytes,
/// most significant bit first, 1 for black, padding bits 0.
public final class PBMWriter {
    private let output: OutputFile
    private let width: Int
    private var packed: [UInt8]

    /// Starts a bitmap in `output` and writes its header.
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``.
    public init(output: OutputFile, width: Int, height: Int) throws(ImageFileError) {
        self.output = output
        self.width = width
        packed = [UInt8](repeating: 0, count: (width + 7) / 8)
        let header = Array("P4\n\(width) \(height)\n".utf8)
        guard fwrite(header, 1, header.count, output.stream) == header.count else { throw Self.failure(output) }
    }

    /// Writes the next `count` rows of 8-bit gray, one byte per pixel: a 0 (black) sample is a 1 bit.
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``.
    public func write(gray: UnsafeBufferPointer<UInt8>, rows count: Int) throws(ImageFileError) {
        precondition(gray.count >= width * count, "one byte per pixel")
        for y in 0..<count {
            let pixels = gray.baseAddress! + y * width
            for byte in 0..<packed.count {
                var bits: UInt8 = 0
                for bit in 0..<8 {
                    let x = byte * 8 + bit
                    if x < width && pixels[x] == 0 { bits |= 0x80 >> UInt8(bit) }
                }
                packed[byte] = bits
            }
            guard fwrite(packed, 1, packed.count, output.stream) == packed.count else { throw Self.failure(output) }
        }
    }

    /// Writes the next `count` rows of a PBM's own raster, `ceil(width / 8)` bytes each.
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``.
    public func write(bits: UnsafeBufferPointer<UInt8>, rows count: Int) throws(ImageFileError) {
        let bytes = packed.count * count
        precondition(bits.count >= bytes, "ceil(width / 8) bytes per row")
        guard fwrite(bits.baseAddress, 1, bytes, output.stream) == bytes else { throw Self.failure(output) }
    }

    private static func failure(_ output: OutputFile) -> ImageFileError {
        output.writeFailure(errno: errno)
    }
}
