/// The point of the complex plane that each pixel samples.
///
/// Every kernel reads its coordinates from here, so every kernel, tile, band
/// and strategy uses exactly the same `Double` for the same pixel. The real
/// parts are a table, one per column; the imaginary parts are computed row
/// by row when asked, by the same expression every time, so that a tall
/// picture costs no memory for them.
public struct SampleGrid: Sendable {
    /// The image the grid covers.
    public let size: ImageSize
    /// The real part of every column's sample.
    public let realParts: [Double]
    /// The imaginary part of every row's sample.
    public let imaginaryParts: ImaginaryParts

    /// The imaginary parts of the rows, top to bottom: a collection computed on access.
    public struct ImaginaryParts: RandomAccessCollection, Sendable {
        enum Formula {
            /// `center − (y + 0.5 − halfHeight) · spacing` (see ``Viewport``).
            case view(center: Double, halfHeight: Double, spacing: Double)
            /// `2·y/N − 1`.
            case benchmarksGame(side: Double)
        }

        let formula: Formula
        /// The first row.
        public var startIndex: Int { 0 }
        /// One past the last row.
        public let endIndex: Int

        /// The imaginary part of row `y`'s samples.
        public subscript(y: Int) -> Double {
            precondition(y >= 0 && y < endIndex, "row outside the grid")
            switch formula {
            case .view(let center, let halfHeight, let spacing):
                return SampleGrid.imaginaryPart(row: y, center: center, halfHeight: halfHeight, spacing: spacing)
            case .benchmarksGame(let n): return 2 * Double(y) / n - 1
            }
        }
    }

    /// The grid of a centred view, sampling pixel centres (see ``Viewport``).
    public init(size: ImageSize, viewport: Viewport) {
        let spacing = viewport.pixelSpacing(for: size)
        let halfWidth = Double(size.width) / 2
        self.size = size
        self.realParts = (0..<size.width).map { x in
            Self.realPart(column: x, center: viewport.centerReal, halfWidth: halfWidth, spacing: spacing)
        }
        self.imaginaryParts = ImaginaryParts(
            formula: .view(center: viewport.centerImaginary, halfHeight: Double(size.height) / 2, spacing: spacing),
            endIndex: size.height)
    }

    /// The grid of the Benchmarks Game "mandelbrot" task: N×N pixels sampling
    /// pixel corners, `Cr = 2·x/N − 1.5`, `Ci = 2·y/N − 1`, row 0 at `Ci = −1`.
    public init(benchmarksGameSide side: Int) {
        let n = Double(side)
        self.size = ImageSize(width: side, height: side)
        self.realParts = (0..<side).map { x in 2 * Double(x) / n - 1.5 }
        self.imaginaryParts = ImaginaryParts(formula: .benchmarksGame(side: n), endIndex: side)
    }

    /// The grid a job samples.
    public static func of(_ job: RenderJob) -> SampleGrid { job.makeSampleGrid() }

    // The order of operations is the documented convention (see ``Viewport``); tests
    // and other tools recompute it the same way, so keep it literal.

    static func realPart(column x: Int, center: Double, halfWidth: Double, spacing: Double) -> Double {
        center + (Double(x) + 0.5 - halfWidth) * spacing
    }

    static func imaginaryPart(row y: Int, center: Double, halfHeight: Double, spacing: Double) -> Double {
        center - (Double(y) + 0.5 - halfHeight) * spacing
    }
}
