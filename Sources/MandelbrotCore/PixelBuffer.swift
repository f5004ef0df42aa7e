/// A caller-owned image in memory: rows of 8-bit gray or RGB pixels, top row first.
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
    /// Bytes per pixel: 1 (gray) or 3 (RGB).
    public let channels: Int
    let storage: UnsafeMutableBufferPointer<UInt8>

    /// Allocates a zero-filled buffer.
    ///
    /// - Parameters:
    ///   - size: The image size.
    ///   - channels: 1 for gray or 3 for RGB; traps otherwise.
    /// - Throws: ``RenderFailure/outOfMemory(bytes:purpose:available:)`` if the memory cannot be had.
    public init(size: ImageSize, channels: Int) throws(RenderFailure) {
        precondition(channels == 1 || channels == 3, "a pixel has 1 or 3 channels")
        let (bytes, overflow) = size.pixelCount.multipliedReportingOverflow(by: channels)
        guard !overflow else { throw .outOfMemory(bytes: .max, purpose: "a \(size) picture", available: nil) }
        self.size = size
        self.channels = channels
        storage = try FallibleAllocation.zeroed(UInt8.self, count: bytes, for: "a \(size) picture")
    }

    deinit { FallibleAllocation.release(storage) }

    /// Bytes in one row.
    public var bytesPerRow: Int { size.width * channels }

    /// Calls `body` with the pixel bytes, rows top to bottom.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(storage))
    }

    /// The bytes of pixel (x, y): one for gray, three (red, green, blue) for RGB.
    public func pixel(x: Int, y: Int) -> ArraySlice<UInt8> {
        precondition(x >= 0 && x < size.width && y >= 0 && y < size.height, "pixel outside the image")
        let start = (y * size.width + x) * channels
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

    /// A pointer to the first byte of row `y`, column `x`.
    func address(x: Int, y: Int) -> UnsafeMutablePointer<UInt8> {
        storage.baseAddress! + (y * size.width + x) * channels
    }
}
