import ImageFiles
import MandelbrotCore

/// A picture file written row by row, top to bottom: a PNG through libpng's row API, or a PBM.
///
/// The file appears at its path only after ``finish()``; ``discard()`` (or
/// dropping the stream unfinished) leaves nothing behind.
final class ImageStream {
    private enum Encoder {
        case png(PNGWriter)
        case pbm(PBMWriter)
    }

    let output: OutputFile
    private let encoder: Encoder
    /// Bytes in one row of the pixels handed to ``write(rows:count:)``.
    let bytesPerRow: Int

    /// Opens `path` and writes the header: the PNG's text chunks, or the PBM's size line.
    ///
    /// - Throws: `ImageFileError` if the file cannot be created or written.
    init(
        path: String, format: ImageFormat, compression: PNGCompression, size: ImageSize, channels: Int, texts: [PNGWriter.TextChunk]
    ) throws(ImageFileError) {
        output = try OutputFile(path: path)
        bytesPerRow = size.width * channels
        do {
            switch format {
            case .png:
                encoder = .png(try PNGWriter(
                    output: output, width: size.width, height: size.height, channels: channels, compression: compression, texts: texts))
            case .pbm:
                precondition(channels == 1, "a PBM is written from gray pixels")
                encoder = .pbm(try PBMWriter(output: output, width: size.width, height: size.height))
            }
        } catch {
            output.discard()
            throw error
        }
    }

    /// Encodes and writes the next `count` rows.
    ///
    /// - Throws: `ImageFileError`; the partial file is removed.
    func write(rows: UnsafeBufferPointer<UInt8>, count: Int) throws(ImageFileError) {
        do {
            switch encoder {
            case .png(let writer): try writer.write(rows: rows, count: count)
            case .pbm(let writer): try writer.write(gray: rows, rows: count)
            }
        } catch {
            output.discard()
            throw error
        }
    }

    /// Ends the image and moves the file into place.
    ///
    /// - Throws: `ImageFileError`; the partial file is removed.
    func finish() throws(ImageFileError) {
        if case .png(let writer) = encoder {
            do { try writer.finish() } catch {
                output.discard()
                throw error
            }
        }
        try output.commit()
    }

    /// Removes whatever was written.
    func discard() { output.discard() }
}
