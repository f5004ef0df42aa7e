import Foundation
import ImageFiles
import MandelbrotCore
import WorkVisuals

/// Writes a rendered canvas to a PNG, atomically, with text chunks saying how it was made.
enum PictureWriter {
    /// Thrown when Ctrl-C arrives while the file is being written; nothing is left behind.
    struct Interrupted: Error {}

    /// Writes `canvas` to `path` in `format`, checking `isInterrupted` between blocks of rows.
    ///
    /// - Returns: The seconds the encoding and write took.
    /// - Throws: `ImageFileError`, or `Interrupted`.
    static func write(
        _ canvas: PixelBuffer, as format: ImageFormat, compression: PNGCompression, to path: String, texts: [PNGWriter.TextChunk],
        isInterrupted: () -> Bool
    ) throws -> Double {
        let start = DispatchTime.now()
        let stream = try ImageStream(
            path: path, format: format, compression: compression, size: canvas.size, channels: canvas.channels, texts: texts)
        let rowsPerBlock = 32
        try canvas.withBytes { bytes in
            for top in stride(from: 0, to: canvas.size.height, by: rowsPerBlock) {
                if isInterrupted() {
                    stream.discard()
                    throw Interrupted()
                }
                let count = min(rowsPerBlock, canvas.size.height - top)
                try stream.write(rows: UnsafeBufferPointer(rebasing: bytes[(top * stream.bytesPerRow)...]), count: count)
            }
        }
        try stream.finish()
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    /// Writes an RGB picture (a work map) as a PNG and commits it.
    static func writePNG(_ picture: RGBPicture, to output: OutputFile) throws(ImageFileError) {
        let writer = try PNGWriter(output: output, width: picture.width, height: picture.height, channels: 3, texts: [
            .init(key: "Software", text: "mandel \(Mandel.version)"),
        ])
        try picture.bytes.withUnsafeBufferPointer { bytes throws(ImageFileError) in
            try writer.write(rows: bytes, count: picture.height)
        }
        try writer.finish()
        try output.commit()
    }
}
