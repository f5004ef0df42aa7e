/// The width and height of an image, in pixels.
public struct ImageSize: Hashable, Sendable, CustomStringConvertible {
    /// The number of columns.
    public let width: Int
    /// The number of rows.
    public let height: Int

    /// Creates a size.
    ///
    /// - Parameters:
    ///   - width: Columns; traps unless positive.
    ///   - height: Rows; traps unless positive.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "an image needs at least one pixel")
        self.width = width
        self.height = height
    }

    /// Width × height.
    public var pixelCount: Int { width * height }

    /// The whole image as a rectangle.
    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// `WxH`, the form `--size` takes.
    public var description: String { "\(width)x\(height)" }
}
