/// A width and a height in pixels: of an image, a band or a tile.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    /// The number of columns.
    public let width: Int
    /// The number of rows.
    public let height: Int

    /// Creates a size; traps unless both sides are positive.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "a size needs at least one pixel")
        self.width = width
        self.height = height
    }

    /// Width × height.
    public var pixelCount: Int { width * height }

    /// `WxH`.
    public var description: String { "\(width)x\(height)" }
}

/// The size of a picture.
public typealias ImageSize = PixelSize

/// The size of the tiles of the `tiles` split.
public typealias TileSize = PixelSize

extension PixelSize {
    /// 64×64, the default tile: large enough that no mechanism's per-task cost shows.
    public static let standardTile = PixelSize(width: 64, height: 64)
}
