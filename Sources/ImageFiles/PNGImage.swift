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
