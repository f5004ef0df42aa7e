/// A rectangle of pixels, x to the right and y downward.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    /// The first column.
    public let x: Int
    /// The first row.
    public let y: Int
    /// The number of columns.
    public let width: Int
    /// The number of rows.
    public let height: Int

    /// Creates a rectangle; traps if any field is negative.
    public init(x: Int, y: Int, width: Int, height: Int) {
        precondition(x >= 0 && y >= 0 && width >= 0 && height >= 0, "a pixel rectangle cannot be negative")
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The number of pixels inside.
    public var pixelCount: Int { width * height }

    /// The column just past the right edge.
    public var maxX: Int { x + width }

    /// The row just past the bottom edge.
    public var maxY: Int { y + height }

    /// Whether the two share at least one pixel.
    public func intersects(_ other: PixelRect) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    /// `WxH+X+Y`, as geometry strings are usually written.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
