public import Platform

/// What a picture file is made of, as every format is given it; a format uses what it needs.
public struct EncodedPicture: Sendable {
    public let width: Int
    public let height: Int
    /// Values per pixel: 1 (gray or bilevel) or 3 (RGB).
    public let channels: Int
    /// Bits per value: 8, or 1 for bilevel rows packed eight pixels to a byte, 1 for black.
    public let bitDepth: Int
    public let compression: PNGCompression
    /// Text chunks, in order, for a format that keeps them.
    public let texts: [PNGWriter.TextChunk]
    /// The most threads encoding at once.
    public let workers: Int
    /// Part K of N of the picture, written as a part file (docs/parts.md), or nil for the whole file.
    public let part: (index: Int, count: Int)?

    /// Describes a picture to encode.
    public init(
        width: Int, height: Int, channels: Int, bitDepth: Int, compression: PNGCompression = .balanced,
        texts: [PNGWriter.TextChunk] = [], workers: Int = 1, part: (index: Int, count: Int)? = nil
    ) {
        (self.width, self.height, self.channels, self.bitDepth) = (width, height, channels, bitDepth)
        (self.compression, self.texts, self.workers, self.part) = (compression, texts, workers, part)
    }
}

/// A picture format's writer: rows in, top to bottom, the file complete after ``finish()``.
/// A format is one file that conforms to this and one line in the command's format catalog.
public protocol ImageEncoder: AnyObject {
    /// Starts `picture` in `output` and writes its header.
    init(output: OutputFile, picture: EncodedPicture) throws(ImageFileError)
    /// Rows worth handing over in one ``write(rows:count:)``.
    var rowsPerWrite: Int { get }
    /// Processor time spent on threads other than the writing one, so far.
    var helperCPU: CPUTime { get }
    /// Encodes and writes the next `count` rows.
    func write(rows: UnsafeBufferPointer<UInt8>, count: Int) throws(ImageFileError)
    /// Ends the image (the output is flushed and closed by its owner).
    func finish() throws(ImageFileError)
    /// The smallest file this format can produce for `picture`.
    static func minimumBytes(for picture: EncodedPicture) -> Int
    /// Memory the encoder keeps while it writes `picture`.
    static func memoryNeeded(for picture: EncodedPicture) -> Int
}
