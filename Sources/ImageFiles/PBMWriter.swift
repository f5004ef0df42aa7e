import Glibc

/// Writes a binary PBM (`P4`) bitmap: the format of the Benchmarks Game "mandelbrot" task.
///
/// The header is `P4\n<width> <height>\n`; each row is `ceil(width / 8)` bytes,
/// most significant bit first, 1 for black, padding bits 0.
public enum PBMWriter {
    /// Writes 8-bit gray rows as a bitmap in which a 0 (black) sample is a 1 bit.
    ///
    /// - Parameters:
    ///   - gray: One byte per pixel, rows top to bottom; traps unless it holds width × height bytes.
    ///   - width: Pixels per row.
    ///   - height: Rows.
    ///   - output: The destination; committed by the caller.
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``.
    public static func write(gray: UnsafeBufferPointer<UInt8>, width: Int, height: Int, to output: OutputFile) throws(ImageFileError) {
        precondition(gray.count == width * height, "one byte per pixel")
        let header = Array("P4\n\(width) \(height)\n".utf8)
        let bytesPerRow = (width + 7) / 8
        var row = [UInt8](repeating: 0, count: bytesPerRow)
        guard fwrite(header, 1, header.count, output.stream) == header.count else { throw failure(output) }
        for y in 0..<height {
            let pixels = gray.baseAddress! + y * width
            for byte in 0..<bytesPerRow {
                var bits: UInt8 = 0
                for bit in 0..<8 {
                    let x = byte * 8 + bit
                    if x < width && pixels[x] == 0 { bits |= 0x80 >> UInt8(bit) }
                }
                row[byte] = bits
            }
            guard fwrite(row, 1, bytesPerRow, output.stream) == bytesPerRow else { throw failure(output) }
        }
    }

    private static func failure(_ output: OutputFile) -> ImageFileError {
        .writeFailed(path: output.path, reason: errno == ENOSPC ? "no space left on the device" : String(cString: strerror(errno)))
    }
}
