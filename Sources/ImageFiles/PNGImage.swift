import PNGShim

/// A PNG read back through libpng: its size, its 8-bit samples and its text chunks.
///
/// A 1-bit gray PNG is read as 8-bit gray, 0 and 255.
package struct PNGImage: Sendable {
    /// Pixels per row.
    package let width: Int
    /// Rows.
    package let height: Int
    /// Samples per pixel: 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA.
    package let channels: Int
    /// Bits per sample in the file: 8, or 1 for a bilevel picture.
    package let bitDepth: Int
    /// Every sample, rows top to bottom.
    package let pixels: [UInt8]
    /// The text chunks, by keyword.
    package let texts: [String: String]

    /// Reads the PNG at `path`.
    ///
    /// - Throws: ``PNGReadError`` if the file cannot be opened or is not a valid 8-bit or 1-bit gray PNG.
    package init(contentsOf path: String) throws {
        var image = mandel_png_image()
        var message = [CChar](repeating: 0, count: 256)
        guard mandel_png_read(path, &image, &message, message.count) == 0 else {
            throw PNGReadError(path: path, reason: String(nulTerminated: message))
        }
        defer { mandel_png_image_free(&image) }
        width = Int(image.width)
        height = Int(image.height)
        channels = Int(image.channels)
        bitDepth = Int(image.bit_depth)
        pixels = Array(UnsafeBufferPointer(start: image.pixels, count: width * height * channels))
        var texts: [String: String] = [:]
        for index in 0..<image.text_count {
            texts[String(cString: image.keys[index]!)] = String(cString: image.texts[index]!)
        }
        self.texts = texts
    }
}

/// A PNG that could not be read back.
package struct PNGReadError: Error, CustomStringConvertible {
    /// The file.
    package let path: String
    /// What libpng said.
    package let reason: String

    /// One line.
    package var description: String { "cannot read '\(path)': \(reason)" }
}

extension PNGImage {
    /// Checks a PNG's structure byte by byte, more strictly than a decoder needs to: the
    /// signature, every chunk's CRC, IEND last, and its IDAT data one whole zlib stream
    /// that inflates to exactly `height` filtered rows of `rowBytes` bytes and checks out
    /// to its Adler-32. libpng stops reading once it has every row, so it never looks at
    /// the end of the stream.
    ///
    /// - Returns: The chunk types, in order.
    /// - Throws: ``PNGReadError`` naming the first thing wrong.
    package static func checkStructure(of bytes: [UInt8], path: String, height: Int, rowBytes: Int) throws -> [String] {
        func fail(_ reason: String) -> PNGReadError { PNGReadError(path: path, reason: reason) }
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw fail("no PNG signature")
        }
        func word(at index: Int) -> UInt32 {
            bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        var types: [String] = []
        var compressed: [UInt8] = []
        var offset = 8
        while offset < bytes.count {
            guard offset + 12 <= bytes.count else { throw fail("a chunk is cut short at byte \(offset)") }
            let length = Int(word(at: offset))
            guard offset + 12 + length <= bytes.count else { throw fail("a chunk runs past the file's end") }
            let body = Array(bytes[(offset + 4)..<(offset + 8 + length)])
            let type = String(decoding: body.prefix(4), as: UTF8.self)
            guard mandel_crc32(0, body, body.count) == word(at: offset + 8 + length) else {
                throw fail("the CRC of \(type) chunk \(types.count) is wrong")
            }
            if type == "IDAT" { compressed += body.dropFirst(4) }
            types.append(type)
            offset += 12 + length
        }
        guard types.last == "IEND" else { throw fail("the file does not end with IEND") }
        var inflated: UInt64 = 0
        var message = [CChar](repeating: 0, count: 256)
        guard mandel_inflate_check(compressed, compressed.count, &inflated, &message, message.count) == 0 else {
            throw fail("the image data: " + String(nulTerminated: message))
        }
        guard inflated == UInt64(height * (rowBytes + 1)) else {
            throw fail("the image data inflates to \(inflated) bytes, not \(height * (rowBytes + 1))")
        }
        return types
    }
}
