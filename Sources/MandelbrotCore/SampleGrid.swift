import Platform

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
        indirect enum Formula: Sendable {
            /// `center − (y + 0.5 − halfHeight) · spacing` (see ``Viewport``).
            case view(center: Double, halfHeight: Double, spacing: Double)
            /// `2·y/N − 1`.
            case benchmarksGame(side: Double)
            /// Every `every`-th pixel's rows of another grid with `samples` rows per pixel.
            case coarse(Formula, every: Int, samples: Int)
            /// Another grid's rows from `first` on.
            case shifted(Formula, first: Int)
        }

        let formula: Formula
        /// The first row.
        public var startIndex: Int { 0 }
        /// One past the last row.
        public let endIndex: Int

        /// The imaginary part of row `y`'s samples.
        public subscript(y: Int) -> Double {
            precondition(y >= 0 && y < endIndex, "row outside the grid")
            return Self.value(of: formula, row: y)
        }

        private static func value(of formula: Formula, row y: Int) -> Double {
            switch formula {
            case .view(let center, let halfHeight, let spacing):
                return SampleGrid.imaginaryPart(row: y, center: center, halfHeight: halfHeight, spacing: spacing)
            case .benchmarksGame(let n): return 2 * Double(y) / n - 1
            case .coarse(let base, let every, let samples):
                return value(of: base, row: SampleGrid.fineIndex(of: y, every: every, samples: samples))
            case .shifted(let base, let first): return value(of: base, row: first + y)
            }
        }
    }

    /// The grid of a centred view, sampling pixel centres (see ``Viewport``).
    public init(size: ImageSize, viewport: Viewport) {
        self.init(size: size, of: size, from: 0, 0, viewport: viewport)
    }

    /// The `size` samples from sample (`column`, `row`) of the grid of a `picture` at `viewport`,
    /// which continues past the picture's edges: the same `Double`s as the picture's own grid
    /// where the two meet (see the note below).
    ///
    /// Column `column + x` of the picture is `cx + (column + x + 0.5 − W/2)·s`; this grid
    /// computes it as `cx + (x + 0.5 − (W/2 − column))·s`. Both brackets are sums of whole
    /// numbers and halves below 2^52, exact in a `Double`, so they are the same number, and
    /// so is every sample. The rows likewise.
    init(size: ImageSize, of picture: ImageSize, from column: Int, _ row: Int, viewport: Viewport) {
        let spacing = viewport.pixelSpacing(for: picture)
        let halfWidth = Double(picture.width) / 2 - Double(column)
        self.size = size
        self.realParts = (0..<size.width).map { x in
            Self.realPart(column: x, center: viewport.centerReal, halfWidth: halfWidth, spacing: spacing)
        }
        self.imaginaryParts = ImaginaryParts(
            formula: .view(
                center: viewport.centerImaginary, halfHeight: Double(picture.height) / 2 - Double(row),
                spacing: spacing),
            endIndex: size.height)
    }

    /// The distance from the centre of the farthest of the `size` samples from (`column`, `row`)
    /// of a `picture`'s grid at `viewport`: `hypot` of the largest real and imaginary offsets,
    /// which lie on the window's edges.
    static func farthestSample(
        of picture: ImageSize, from column: Int, _ row: Int, size: ImageSize, viewport: Viewport
    ) -> Double {
        let spacing = viewport.pixelSpacing(for: picture)
        let halfWidth = Double(picture.width) / 2 - Double(column)
        let halfHeight = Double(picture.height) / 2 - Double(row)
        func real(_ x: Int) -> Double {
            abs(realPart(column: x, center: viewport.centerReal, halfWidth: halfWidth, spacing: spacing))
        }
        func imaginary(_ y: Int) -> Double {
            abs(imaginaryPart(row: y, center: viewport.centerImaginary, halfHeight: halfHeight, spacing: spacing))
        }
        return hypot(
            max(real(0), real(size.width - 1)), max(imaginary(0), imaginary(size.height - 1)))
    }

    /// The grid of the Benchmarks Game "mandelbrot" task: N×N pixels sampling
    /// pixel corners, `Cr = 2·x/N − 1.5`, `Ci = 2·y/N − 1`, row 0 at `Ci = −1`.
    public init(benchmarksGameSide side: Int) {
        let n = Double(side)
        self.size = ImageSize(width: side, height: side)
        self.realParts = (0..<side).map { x in 2 * Double(x) / n - 1.5 }
        self.imaginaryParts = ImaginaryParts(formula: .benchmarksGame(side: n), endIndex: side)
    }

    /// The grid of every `every`-th pixel of this one in each direction, for a picture of
    /// `size` pixels with `samples`×`samples` samples each: the same `Double`s, not recomputed.
    func coarse(every: Int, samples: Int, size: ImageSize) -> SampleGrid {
        SampleGrid(
            size: ImageSize(width: size.width * samples, height: size.height * samples),
            realParts: (0..<(size.width * samples)).map {
                realParts[Self.fineIndex(of: $0, every: every, samples: samples)]
            },
            imaginaryParts: ImaginaryParts(
                formula: .coarse(imaginaryParts.formula, every: every, samples: samples),
                endIndex: size.height * samples))
    }

    /// `count` rows of this grid from row `first`: the same `Double`s, computed by the same expressions.
    func rows(from first: Int, count: Int) -> SampleGrid {
        precondition(first >= 0 && count > 0 && first + count <= size.height, "rows outside the grid")
        return SampleGrid(
            size: ImageSize(width: size.width, height: count), realParts: realParts,
            imaginaryParts: ImaginaryParts(formula: .shifted(imaginaryParts.formula, first: first), endIndex: count))
    }

    /// The fine grid's sample index of a coarse grid's sample `index`: pixel `index / samples`
    /// becomes pixel `every` times as far, and the sample within the pixel stays.
    static func fineIndex(of index: Int, every: Int, samples: Int) -> Int {
        (index / samples) * every * samples + index % samples
    }

    init(size: ImageSize, realParts: [Double], imaginaryParts: ImaginaryParts) {
        self.size = size
        self.realParts = realParts
        self.imaginaryParts = imaginaryParts
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
