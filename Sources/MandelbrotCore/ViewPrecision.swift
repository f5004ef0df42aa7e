import Platform

/// What `Double` can resolve of a view: whether neighbouring samples are still different points.
///
/// Deep zooms end where the pixel step falls below the spacing of `Double`s
/// around the centre: neighbouring pixels then sample the same point, and the
/// picture turns into blocks and noise. These answers use the sample grid's
/// own expressions (see ``SampleGrid``), at the grid's edges and centre.
extension Viewport {
    /// Whether the samples at the corners of a grid of `size` have finite coordinates.
    public func cornersAreFinite(for size: PixelSize) -> Bool {
        let spacing = pixelSpacing(for: size)
        let halfWidth = Double(size.width) / 2
        let halfHeight = Double(size.height) / 2
        return [0, size.width - 1].allSatisfy {
            SampleGrid.realPart(column: $0, center: centerReal, halfWidth: halfWidth, spacing: spacing).isFinite
        }
            && [0, size.height - 1].allSatisfy {
                SampleGrid.imaginaryPart(row: $0, center: centerImaginary, halfHeight: halfHeight, spacing: spacing)
                    .isFinite
            }
    }

    /// Whether some neighbouring samples of a grid of `size` have the same coordinates.
    public func hasCoincidentSamples(for size: PixelSize) -> Bool {
        let spacing = pixelSpacing(for: size)
        let halfWidth = Double(size.width) / 2
        let halfHeight = Double(size.height) / 2
        func coincide(_ count: Int, _ coordinate: (Int) -> Double) -> Bool {
            // Both edges and the middle: where the coordinates are largest, and where they cross the centre.
            let probes = [0, count / 2 - 1, count - 2].filter { $0 >= 0 && $0 + 1 < count }
            return probes.contains { coordinate($0) == coordinate($0 + 1) }
        }
        return coincide(size.width) {
            SampleGrid.realPart(column: $0, center: centerReal, halfWidth: halfWidth, spacing: spacing)
        }
            || coincide(size.height) {
                SampleGrid.imaginaryPart(row: $0, center: centerImaginary, halfHeight: halfHeight, spacing: spacing)
            }
    }

    /// The zoom from which neighbouring samples of a grid of `size` around this centre
    /// coincide, to about 1%; nil if they stay distinct up to a zoom of 10³⁰⁰.
    public func precisionLimit(for size: PixelSize) -> Double? {
        func coincides(atLog10 exponent: Double) -> Bool {
            Viewport(centerReal: centerReal, centerImaginary: centerImaginary, zoom: pow(10, exponent))
                .hasCoincidentSamples(for: size)
        }
        var low = 0.0
        var high = 300.0
        guard coincides(atLog10: high) else { return nil }
        if coincides(atLog10: low) { return 1 }
        while high - low > 0.004 {
            let middle = (low + high) / 2
            if coincides(atLog10: middle) { high = middle } else { low = middle }
        }
        return pow(10, high)
    }
}
