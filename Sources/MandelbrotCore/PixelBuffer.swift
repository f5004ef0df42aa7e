/// A caller-owned image in memory: rows of pixels in a ``PixelFormat``, top row first.
///
/// Workers write disjoint rectangles of it from any thread, with no locks;
/// whoever reads it must first have synchronised with every writer (a
/// strategy's completion on the main queue guarantees that).
public final class PixelBuffer: @unchecked Sendable {
    // @unchecked: the storage is raw memory shared by design. Each tile of a
    // work plan is written by exactly one worker, tiles never overlap, and all
    // reads happen after the strategy's completion, which every strategy
    // orders after its workers' last write (group notify, join, or queue order).

    /// The image's size.
    public let size: ImageSize
    /// How the pixels are laid out.
    public let format: PixelFormat
    /// Bytes in one row.
    public let bytesPerRow: Int
    let storage: UnsafeMutableBufferPointer<UInt8>

    /// Allocates a zero-filled buffer.
    ///
    /// - Throws: ``RenderFailure/outOfMemory(bytes:purpose:available:)`` if the memory cannot be had.
    public init(size: ImageSize, format: PixelFormat) throws(RenderFailure) {
        let rowBytes = format.bytesPerRow(width: size.width)
        let (bytes, overflow) = rowBytes.multipliedReportingOverflow(by: size.height)
        guard !overflow else { throw .outOfMemory(bytes: .max, purpose: "a \(size) picture", available: nil) }
        self.size = size
        self.format = format
        bytesPerRow = rowBytes
        storage = try FallibleAllocation.zeroed(UInt8.self, count: bytes, for: "a \(size) picture")
    }

    deinit { FallibleAllocation.release(storage) }

    /// Values per pixel: 1 (bilevel or gray) or 3 (RGB).
    public var channels: Int { format.channels }

    /// Calls `body` with the pixel bytes, rows top to bottom.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(storage))
    }

    /// The value of pixel (x, y) as 8-bit channels: one for gray (a bilevel pixel reads
    /// as 0 or 255), three (red, green, blue) for RGB.
    public func pixel(x: Int, y: Int) -> ArraySlice<UInt8> {
        precondition(x >= 0 && x < size.width && y >= 0 && y < size.height, "pixel outside the image")
        if format == .bilevel {
            let inSet = storage[y * bytesPerRow + x / 8] & (0x80 >> UInt8(x % 8)) != 0
            return [inSet ? 0 : 255]
        }
        let start = y * bytesPerRow + x * channels
        return Array(storage[start..<start + channels])[...]
    }

    /// A 64-bit FNV-1a hash of the pixels, eight bytes at a time: equal pictures have equal checksums.
    public var checksum: UInt64 {
        var checksum = PixelChecksum()
        checksum.add(UnsafeBufferPointer(storage))
        return checksum.value
    }

    /// The first `rows` rows, for a reader such as an encoder.
    public func withRows<Result>(_ rows: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result
    {
        precondition(rows >= 0 && rows <= size.height, "rows outside the buffer")
        return try body(UnsafeBufferPointer(start: storage.baseAddress, count: rows * bytesPerRow))
    }

    /// A pointer to the first byte of row `y`.
    func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { storage.baseAddress! + y * bytesPerRow }

    /// A pointer to the first byte of pixel (x, y) of a gray or RGB buffer.
    func address(x: Int, y: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(format != .bilevel, "a bilevel pixel has no byte of its own")
        return row(y) + x * channels
    }
}
