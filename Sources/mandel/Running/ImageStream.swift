import ImageFiles
import MandelbrotCore
import Platform

/// A picture file written row by row, top to bottom: a PNG compressed on several threads, or a PBM.
///
/// The file is complete after ``finish()``; it appears at its path when the run's
/// outputs are committed together.
final class ImageStream {
    private enum Encoder {
        case png(PNGWriter)
        case pbm(PBMWriter)
    }

    let output: OutputFile
    private let encoder: Encoder
    /// Bytes in one row of the pixels handed to ``write(rows:count:)``.
    let bytesPerRow: Int

    /// Writes the header to `output`: the PNG's text chunks, or the PBM's size line.
    ///
    /// - Parameters:
    ///   - size: The whole picture's size, also when only a part of it is written.
    ///   - workers: The most threads compressing a PNG at once.
    ///   - part: Part K of N of the picture, written as a part file (docs/parts.md); a PNG only.
    /// - Throws: `ImageFileError` if the header cannot be written.
    init(
        output: OutputFile, format: ImageFormat, compression: PNGCompression, size: ImageSize, pixelFormat: PixelFormat,
        texts: [PNGWriter.TextChunk], workers: Int, part: (index: Int, count: Int)? = nil
    ) throws(ImageFileError) {
        self.output = output
        bytesPerRow = pixelFormat.bytesPerRow(width: size.width)
        switch format {
        case .png:
            encoder = .png(
                try PNGWriter(
                    output: output, width: size.width, height: size.height, channels: pixelFormat.channels,
                    bitDepth: pixelFormat.bitDepth, compression: compression, texts: texts, workers: workers,
                    part: part))
        case .pbm:
            precondition(pixelFormat == .bilevel && part == nil, "a PBM is written whole, from bilevel pixels")
            encoder = .pbm(try PBMWriter(output: output, width: size.width, height: size.height))
        }
    }

    /// Rows worth handing over in one ``write(rows:count:)``: enough to keep a PNG's
    /// compressing threads busy; a PBM has nothing to share out.
    var rowsPerWrite: Int {
        switch encoder {
        case .png(let writer): writer.rowsPerWrite
        case .pbm: 64
        }
    }

    /// Processor time the encoder spent on threads other than the writing one, so far.
    var helperCPU: CPUTime {
        if case .png(let writer) = encoder { writer.helperCPU } else { .zero }
    }

    /// Encodes and writes the next `count` rows.
    func write(rows: UnsafeBufferPointer<UInt8>, count: Int) throws(ImageFileError) {
        switch encoder {
        case .png(let writer): try writer.write(rows: rows, count: count)
        case .pbm(let writer): try writer.write(bits: rows, rows: count)
        }
    }

    /// Ends the image: the file is complete, but not yet in place.
    func finish() throws(ImageFileError) {
        if case .png(let writer) = encoder { try writer.finish() }
        try output.flushAndClose()
    }

    /// The smallest file this stream can produce for `size`: a PBM's exact size, or, for a PNG,
    /// the deflate format's limit of about 1032 bytes of input per byte of output, plus the chunks.
    static func minimumBytes(format: ImageFormat, size: ImageSize, pixelFormat: PixelFormat) -> Int {
        switch format {
        case .pbm:
            let header = "P4\n\(size.width) \(size.height)\n".utf8.count
            return header + (size.width + 7) / 8 * size.height
        case .png:
            // Each row is preceded by its filter byte.
            let raw = (pixelFormat.bytesPerRow(width: size.width) + 1).multipliedReportingOverflow(by: size.height)
            return raw.overflow ? Int.max : raw.partialValue / 1032 + 1024
        }
    }
}
