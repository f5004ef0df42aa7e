/// A caller-owned grid of escape counts, one per pixel, filled in as tiles render.
///
/// Only renders that need the counts afterwards (the cost map) pass one;
/// otherwise the counts live only as long as a row.
public final class IterationCounts: @unchecked Sendable {
    // @unchecked: raw memory written by tiles that never overlap, and read only
    // after the strategy's completion (the same argument as PixelBuffer).

    /// The image's size.
    public let size: ImageSize
    let storage: UnsafeMutableBufferPointer<UInt32>

    /// Allocates a zero-filled grid.
    ///
    /// - Throws: ``RenderFailure/outOfMemory(bytes:purpose:available:)`` if the memory cannot be had.
    public init(size: ImageSize) throws(RenderFailure) {
        self.size = size
        storage = try FallibleAllocation.zeroed(
            UInt32.self, count: size.pixelCount, for: "the escape counts of a \(size) picture")
    }

    deinit { FallibleAllocation.release(storage) }

    /// The escape count of pixel (x, y).
    public subscript(x: Int, y: Int) -> UInt32 {
        precondition(x >= 0 && x < size.width && y >= 0 && y < size.height, "pixel outside the image")
        return storage[y * size.width + x]
    }

    /// Every count, row by row from the top: what a NumPy file of shape (height, width) holds.
    public func withCounts<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt32>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeBufferPointer(storage))
    }

    /// A pointer to the count of pixel (x, y).
    func address(x: Int, y: Int) -> UnsafeMutablePointer<UInt32> {
        storage.baseAddress! + y * size.width + x
    }
}
