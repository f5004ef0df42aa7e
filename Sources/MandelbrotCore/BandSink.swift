public import Platform

/// Who takes the finished bands of a render: a file encoder, usually.
public protocol BandSink: Sendable {
    /// Takes a finished band, in picture order, on the render's band queue.
    ///
    /// Return at once (do the work on a queue of your own), and call `done`
    /// exactly once, when the band's pixels are no longer needed, with the
    /// processor time the work took or the error that stopped it. An error
    /// cancels the render, and ``PictureRender/run(_:sink:)`` rethrows it.
    func consume(_ band: FinishedBand, done: @escaping @Sendable (Result<CPUTime, any Error>) -> Void)
}

/// A band whose every pixel is rendered, handed to a ``BandSink``.
public struct FinishedBand: Sendable {
    /// The buffer the band was rendered into; its first rows hold the band.
    public let buffer: PixelBuffer
    /// The picture rows the band holds.
    public let rows: Range<Int>

    /// The band's bytes, rows top to bottom; valid until the sink calls `done`.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try buffer.withRows(rows.count, body)
    }
}
