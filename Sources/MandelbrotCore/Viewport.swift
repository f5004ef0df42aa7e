/// Where in the complex plane an image looks: the centre point and the zoom.
///
/// The pixel convention is part of `mandel`'s interface: for a W×H image,
/// pixel (x, y) samples its centre at
/// `re = cx + (x + 0.5 − W/2)·s`, `im = cy − (y + 0.5 − H/2)·s`,
/// with `s = 3 / (zoom · min(W, H))`: the shorter side spans 3 units at zoom 1.
public struct Viewport: Hashable, Sendable {
    /// The real part of the centre.
    public var centerReal: Double
    /// The imaginary part of the centre.
    public var centerImaginary: Double
    /// The magnification: 1 shows 3 units across the shorter side.
    public var zoom: Double

    /// The default view: the whole set, centred on −0.5 + 0i.
    public static let whole = Viewport(centerReal: -0.5, centerImaginary: 0, zoom: 1)

    /// Creates a viewport; traps unless the centre is finite and the zoom finite and positive.
    public init(centerReal: Double, centerImaginary: Double, zoom: Double) {
        precondition(centerReal.isFinite && centerImaginary.isFinite, "the centre must be finite")
        precondition(zoom.isFinite && zoom > 0, "the zoom must be finite and positive")
        self.centerReal = centerReal
        self.centerImaginary = centerImaginary
        self.zoom = zoom
    }

    /// The distance between neighbouring pixel centres for an image of `size`.
    public func pixelSpacing(for size: ImageSize) -> Double {
        3 / (zoom * Double(min(size.width, size.height)))
    }
}
