/// The size of the tiles of the `tiles` split.
public struct TileSize: Hashable, Sendable, CustomStringConvertible {
    /// Tile width in pixels.
    public let width: Int
    /// Tile height in pixels.
    public let height: Int

    /// Creates a tile size; traps unless both sides are positive.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "a tile needs at least one pixel")
        self.width = width
        self.height = height
    }

    /// 64×64, the default.
    public static let standard = TileSize(width: 64, height: 64)

    /// `WxH`, the form `--tile` takes.
    public var description: String { "\(width)x\(height)" }
}
