package import ImageFiles
package import MandelOptions
package import MandelbrotCore
package import Platform

/// A picture file written row by row, top to bottom: a PNG compressed on several threads, or a PBM.
///
/// The file is complete after ``finish()``; it appears at its path when the run's
/// outputs are committed together.
package final class ImageStream {
    package let output: OutputFile
    private let encoder: any ImageEncoder
    /// Bytes in one row of the pixels handed to ``write(rows:count:)``.
    package let bytesPerRow: Int

    /// Writes the header to `output`: the PNG's text chunks, or the PBM's size line.
    ///
    /// - Parameters:
    ///   - size: The whole picture's size, also when only a part of it is written.
    ///   - workers: The most threads compressing a PNG at once.
    ///   - part: Part K of N of the picture, written as a part file (docs/parts.md); a PNG only.
    /// - Throws: `ImageFileError` if the header cannot be written.
    package init(
        output: OutputFile, format: ImageFormat, compression: PNGCompression, size: ImageSize, pixelFormat: PixelFormat,
        texts: [PNGWriter.TextChunk], workers: Int, part: (index: Int, count: Int)? = nil
    ) throws(ImageFileError) {
        self.output = output
        bytesPerRow = pixelFormat.bytesPerRow(width: size.width)
        encoder = try format.encoder.init(
            output: output,
            picture: Self.picture(
                size: size, pixelFormat: pixelFormat, compression: compression, texts: texts, workers: workers,
                part: part))
    }

    /// The picture file of the render that `facts` describe, in `output`, as `outputs` ask for it:
    /// the one place `render` and the server start a picture, so that both write the same bytes.
    package convenience init(
        of facts: RenderFacts, output: OutputFile, outputs: RenderOutputOptions
    )
        throws(ImageFileError)
    {
        let job = facts.job
        try self.init(
            output: output, format: outputs.format, compression: outputs.effectiveCompression,
            size: facts.part?.pictureSize ?? job.size, pixelFormat: job.pixelFormat, texts: facts.textChunks,
            workers: job.workers, part: facts.part.map { ($0.index, $0.count) })
    }

    /// Rows worth handing over in one ``write(rows:count:)``: enough to keep a PNG's
    /// compressing threads busy; a PBM has nothing to share out.
    package var rowsPerWrite: Int { encoder.rowsPerWrite }

    /// Processor time the encoder spent on threads other than the writing one, so far.
    package var helperCPU: CPUTime { encoder.helperCPU }

    /// Encodes and writes the next `count` rows.
    package func write(rows: UnsafeBufferPointer<UInt8>, count: Int) throws(ImageFileError) {
        try encoder.write(rows: rows, count: count)
    }

    /// Ends the image: the file is complete, but not yet in place.
    package func finish() throws(ImageFileError) {
        try encoder.finish()
        try output.flushAndClose()
    }

    /// What `format`'s encoder is told about a picture of `size` in `pixelFormat`.
    package static func picture(
        size: ImageSize, pixelFormat: PixelFormat, compression: PNGCompression = .balanced,
        texts: [PNGWriter.TextChunk] = [], workers: Int = 1, part: (index: Int, count: Int)? = nil
    ) -> EncodedPicture {
        EncodedPicture(
            width: size.width, height: size.height, channels: pixelFormat.channels, bitDepth: pixelFormat.bitDepth,
            compression: compression, texts: texts, workers: workers, part: part)
    }

    /// The smallest file this stream can produce for `size`: a PBM's exact size, or, for a PNG,
    /// the deflate format's limit of about 1032 bytes of input per byte of output, plus the chunks.
    package static func minimumBytes(format: ImageFormat, size: ImageSize, pixelFormat: PixelFormat) -> Int {
        format.encoder.minimumBytes(for: picture(size: size, pixelFormat: pixelFormat))
    }
}
