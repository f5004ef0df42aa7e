/// A colour.
public struct RGB: Sendable, Equatable {
    public var red: UInt8, green: UInt8, blue: UInt8

    /// Creates a colour.
    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `self` over `base`, with `amount` (0…1) of `self`.
    func blended(over base: RGB, amount: Double) -> RGB {
        func mix(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
            UInt8((Double(bottom) + (Double(top) - Double(bottom)) * amount).rounded())
        }
        return RGB(mix(red, base.red), mix(green, base.green), mix(blue, base.blue))
    }
}

/// An 8-bit RGB picture in memory, rows top to bottom: what the work maps draw into.
public struct RGBPicture: Sendable {
    /// Pixels per row.
    public let width: Int
    /// Rows.
    public let height: Int
    /// Red, green, blue for every pixel, rows top to bottom.
    public private(set) var bytes: [UInt8]

    /// A picture filled with `color`.
    public init(width: Int, height: Int, color: RGB) {
        self.width = width
        self.height = height
        bytes = [UInt8](repeating: 0, count: width * height * 3)
        fill(x: 0, y: 0, width: width, height: height, color: color)
    }

    /// The colour of pixel (x, y).
    public subscript(x: Int, y: Int) -> RGB {
        get {
            let index = (y * width + x) * 3
            return RGB(bytes[index], bytes[index + 1], bytes[index + 2])
        }
        set {
            let index = (y * width + x) * 3
            bytes[index] = newValue.red
            bytes[index + 1] = newValue.green
            bytes[index + 2] = newValue.blue
        }
    }

    /// Fills a rectangle, clipped to the picture.
    mutating func fill(x: Int, y: Int, width: Int, height: Int, color: RGB) {
        for row in max(0, y)..<min(self.height, y + height) {
            for column in max(0, x)..<min(self.width, x + width) {
                self[column, row] = color
            }
        }
    }
}
