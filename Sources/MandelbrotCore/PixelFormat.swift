/// How a picture's pixels are laid out in memory and in its file.
public enum PixelFormat: Sendable, Equatable {
    /// One bit per pixel, eight pixels to a byte, the leftmost in the high bit, each row
    /// starting on a byte: 1 is the set (black), 0 outside it (white). This is a PBM's
    /// raster exactly; a PNG stores the same bits inverted (its 0 is black).
    case bilevel
    /// One byte per pixel, 0 black to 255 white.
    case gray
    /// Three bytes per pixel: red, green, blue.
    case rgb

    /// The values a pixel has in its file's colour type: 1 for bilevel and gray, 3 for RGB.
    public var channels: Int { self == .rgb ? 3 : 1 }

    /// Bits per channel: 1 for bilevel, 8 otherwise.
    public var bitDepth: Int { self == .bilevel ? 1 : 8 }

    /// Bytes in a row of `width` pixels (`Int.max` if the count overflows).
    public func bytesPerRow(width: Int) -> Int {
        switch self {
        case .bilevel: width / 8 + (width % 8 == 0 ? 0 : 1)
        case .gray: width
        case .rgb: width.multipliedReportingOverflow(by: 3).overflow ? .max : width * 3
        }
    }
}

extension ColorScheme {
    /// How this scheme's pixels are stored: black and white takes one bit per pixel,
    /// unless supersampling averages its samples into grays.
    public func pixelFormat(supersampling: Int) -> PixelFormat {
        switch self {
        case .bw: supersampling == 1 ? .bilevel : .gray
        case .gray: .gray
        case .smooth, .histogram: .rgb
        }
    }
}
