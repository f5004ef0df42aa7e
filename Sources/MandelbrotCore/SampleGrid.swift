/// The point of the complex plane that each pixel samples, computed once per image.
///
/// Every kernel reads its coordinates from these two tables, so every kernel,
/// tile and strategy uses exactly the same `Double` for the same pixel.
public struct SampleGrid: Sendable {
    /// The image the grid covers.
    public let size: ImageSize
    /// The real part of every column's sample.
    public let realParts: [Double]
    /// The imaginary part of every row's sample.
    public let imaginaryParts: [Double]

    /// The grid of a centred view, sampling pixel centres (see ``Viewport``).
    public init(size: ImageSize, viewport: Viewport) {
        let spacing = viewport.pixelSpacing(for: size)
        let halfWidth = Double(size.width) / 2
        let halfHeight = Double(size.height) / 2
        self.size = size
        // The order of operations is the documented convention; tests and
        // other tools recompute it the same way, so keep it literal.
        self.realParts = (0..<size.width).map { x in
            viewport.centerReal + (Double(x) + 0.5 - halfWidth) * spacing
        }
        self.imaginaryParts = (0..<size.height).map { y in
            viewport.centerImaginary - (Double(y) + 0.5 - halfHeight) * spacing
        }
    }

    /// The grid of the Benchmarks Game "mandelbrot" task: N×N pixels sampling
    /// pixel corners, `Cr = 2·x/N − 1.5`, `Ci = 2·y/N − 1`, row 0 at `Ci = −1`.
    public init(benchmarksGameSide side: Int) {
        let n = Double(side)
        self.size = ImageSize(width: side, height: side)
        self.realParts = (0..<side).map { x in 2 * Double(x) / n - 1.5 }
        self.imaginaryParts = (0..<side).map { y in 2 * Double(y) / n - 1 }
    }

    /// The grid a job samples.
    public static func of(_ job: RenderJob) -> SampleGrid { job.makeSampleGrid() }
}
