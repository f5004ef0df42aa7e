/// Everything that defines one render: what to draw, how to colour it and how to split the work.
public struct RenderJob: Sendable {
    /// Which points of the plane the pixels sample.
    public enum Region: Sendable, Hashable {
        /// A centred view with `mandel`'s pixel-centre convention.
        case view(Viewport)
        /// The Benchmarks Game "mandelbrot" task: pixel corners of [−1.5, 0.5] × [−1, 1],
        /// 50 iterations, and a point counts as in the set only if it is still
        /// inside the radius after the 50th.
        case benchmarksGame
    }

    /// The image size.
    public var size: ImageSize
    /// The part of the plane shown.
    public var region: Region
    /// The iteration limit; traps if set to zero or less.
    public var iterations: Int {
        didSet { Self.check(iterations: iterations) }
    }
    /// How counts become pixels.
    public var colorScheme: ColorScheme
    /// The gradient of smooth colouring.
    public var palette: Palette
    /// How the work is divided.
    public var split: WorkSplit
    /// The tile size of the `tiles` split.
    public var tileSize: TileSize
    /// How many workers to use; traps if set to zero or less.
    public var workers: Int {
        didSet { Self.check(workers: workers) }
    }
    /// The code that computes the counts.
    public var kernel: IterationKernel
    /// For a Julia set, its constant; nil for the Mandelbrot set.
    public var julia: JuliaConstant?
    /// Samples per pixel along each axis: k gives k×k samples, averaged in linear light; traps if set below 1.
    public var supersampling: Int {
        didSet { Self.check(supersampling: supersampling) }
    }
    /// The pixels of a larger picture this job renders (see ``rows(_:)`` and ``window(x:y:size:)``),
    /// or nil for a whole picture.
    public private(set) var window: Window?

    /// A window of a picture's pixel grid: which pixels, and how large the whole picture is.
    ///
    /// The grid continues past the picture's edges by the same convention (see ``Viewport``),
    /// so a window may lie partly or wholly outside the picture: what `mandel serve`'s tiles
    /// are, windows of one picture that the user pans across.
    public struct Window: Sendable, Equatable {
        /// The whole picture's size: where its view's pixels lie.
        public let pictureSize: ImageSize
        /// The picture's column that is this job's column 0 (negative left of the picture).
        public let firstColumn: Int
        /// The picture's row that is this job's row 0 (negative above the picture).
        public let firstRow: Int

    }
    /// A view past `Double`'s precision, rendered by perturbation; nil renders ``region`` with `Double`s.
    /// ``region`` then holds the view rounded to `Double`s, for reports only.
    public var deep: DeepView?

    /// Creates a job; traps on a non-positive iteration limit, worker count or supersampling.
    public init(
        size: ImageSize, region: Region = .view(.whole), iterations: Int = 256,
        colorScheme: ColorScheme = .smooth, palette: Palette = .classic,
        split: WorkSplit = .tiles, tileSize: TileSize = .standardTile, workers: Int = 1,
        kernel: IterationKernel = .simd, julia: JuliaConstant? = nil, supersampling: Int = 1
    ) {
        Self.check(supersampling: supersampling)
        Self.check(iterations: iterations)
        Self.check(workers: workers)
        self.size = size
        self.region = region
        self.iterations = iterations
        self.colorScheme = colorScheme
        self.palette = palette
        self.split = split
        self.tileSize = tileSize
        self.workers = workers
        self.kernel = kernel
        self.julia = julia
        self.supersampling = supersampling
    }

    // The checks of the initialiser, made again when a property is set (an observer does not run in `init`).
    private static func check(iterations: Int) { precondition(iterations > 0, "the iteration limit must be positive") }
    private static func check(workers: Int) { precondition(workers > 0, "a render needs at least one worker") }
    private static func check(supersampling: Int) {
        precondition(supersampling >= 1, "supersampling takes at least one sample per pixel")
    }

    /// The passes a strategy runs over the plan, in order: histogram colouring counts
    /// first and colours second; every other colouring colours in one pass.
    public var passes: [RenderPass] { colorScheme == .histogram ? [.counting, .coloring] : [.coloring] }

    /// The plan of this job for a picture cut into bands of `bandHeight` rows (whole by default).
    public func plan(bandHeight: Int? = nil) -> WorkPlan {
        WorkPlan(size: size, split: split, workers: workers, tileSize: tileSize, bandHeight: bandHeight)
    }

    /// How the work is split, in words: `tiles 64x64`, `rows` or `bands`.
    public var splitLabel: String { split == .tiles ? "tiles \(tileSize)" : split.rawValue }

    /// Whether this job draws the Benchmarks Game's fixed region.
    public var isBenchmarksGame: Bool {
        if case .benchmarksGame = region { true } else { false }
    }

    /// The limit the kernel runs to. The Benchmarks Game checks the radius
    /// once more after its last iteration, which is the same as one more step
    /// of `EscapeTime.count`: in the set ⇔ count == limit + 1.
    public var kernelLimit: Int {
        if case .benchmarksGame = region { iterations + 1 } else { iterations }
    }

    /// The job that renders only `rows` of this job's picture: its ``size`` is as tall as the
    /// range, and each of its pixels is the whole picture's pixel, the same bytes (a part of
    /// a picture rendered on several machines). Traps unless the range is non-empty and
    /// inside the picture, and on a job that is already a window.
    public func rows(_ rows: Range<Int>) -> RenderJob {
        precondition(
            !rows.isEmpty && rows.lowerBound >= 0 && rows.upperBound <= size.height, "rows outside the picture")
        return windowed(x: 0, y: rows.lowerBound, size: ImageSize(width: size.width, height: rows.count))
    }

    /// The job that renders the `size` pixels from pixel (`x`, `y`) of this job's picture's
    /// grid, which continues past the picture's edges: each of its pixels is the picture's
    /// pixel (or the one the picture would have there), the same bytes. Only the picture's
    /// view and size decide a pixel: a deep view's reference orbit is the whole picture's
    /// (its precision and the deltas its table allows for), reaching out by powers of two
    /// to a window beyond the picture (see ``deepReach``). Traps on a job that is already a
    /// window, on the Benchmarks Game's region, and where a sample's column or row would
    /// pass ±2^40.
    public func window(x: Int, y: Int, size windowSize: ImageSize) -> RenderJob {
        precondition(!isBenchmarksGame, "the Benchmarks Game's region has no pixels outside it")
        return windowed(x: x, y: y, size: windowSize)
    }

    private func windowed(x: Int, y: Int, size windowSize: ImageSize) -> RenderJob {
        precondition(window == nil, "a window of a window")
        let reach = 1 << 40
        precondition(
            abs(x) < reach && abs(y) < reach && windowSize.width < reach && windowSize.height < reach,
            "a window beyond 2^40 pixels")
        var part = self
        part.window = Window(pictureSize: size, firstColumn: x, firstRow: y)
        part.size = windowSize
        return part
    }

    /// The whole picture's size: the window's picture, or this job's own.
    public var pictureSize: ImageSize { window?.pictureSize ?? size }

    /// How the job's pixels are stored.
    public var pixelFormat: PixelFormat { colorScheme.pixelFormat(supersampling: supersampling) }

    /// The sample grid of this job: k×k samples per pixel when supersampling.
    ///
    /// A grid k times as wide and tall over the same view puts sample (X, Y) at
    /// `re = cx + ((X + 0.5)/k − W/2)·s`: pixel X/k, sub-sample X mod k.
    ///
    /// A deep view's grid holds each sample's offset from the centre at zoom 1 (the deltas
    /// times the zoom), which the same expressions compute exactly as for a shallow view.
    func makeSampleGrid() -> SampleGrid {
        let k = supersampling
        let picture = ImageSize(width: pictureSize.width * k, height: pictureSize.height * k)
        switch region {
        case .view(let viewport):
            // A deep view's grid: the same expressions around 0 at zoom 1.
            return SampleGrid(
                size: ImageSize(width: size.width * k, height: size.height * k),
                of: picture, from: (window?.firstColumn ?? 0) * k, (window?.firstRow ?? 0) * k,
                viewport: deep == nil ? viewport : Viewport(centerReal: 0, centerImaginary: 0, zoom: 1))
        case .benchmarksGame:
            let grid = SampleGrid(benchmarksGameSide: size.width)
            guard let window else { return grid }
            return grid.rows(from: window.firstRow, count: size.height)
        }
    }

    /// What a deep view's reference orbit is computed for: the whole picture's sample grid
    /// (its precision comes from the picture's size, never a window's), and the farthest
    /// sample from the centre that its table must allow for, in zoom-1 units: the picture's
    /// farthest corner, doubled until it reaches the window's where a window goes beyond.
    ///
    /// So every window of a picture takes the same reference as the whole picture, and the
    /// same pixels; windows beyond it share one reference per power of two.
    public var deepReach: (pictureSamples: ImageSize, farthestOffset: Double) {
        let k = supersampling
        let picture = ImageSize(width: pictureSize.width * k, height: pictureSize.height * k)
        let unit = Viewport(centerReal: 0, centerImaginary: 0, zoom: 1)
        let whole = SampleGrid.farthestSample(of: picture, from: 0, 0, size: picture, viewport: unit)
        guard let window else { return (picture, whole) }
        let own = SampleGrid.farthestSample(
            of: picture, from: window.firstColumn * k, window.firstRow * k,
            size: ImageSize(width: size.width * k, height: size.height * k), viewport: unit)
        // A picture of one sample has its only one at the centre: the window's own reach then.
        var reach = whole > 0 ? whole : own
        while reach < own { reach *= 2 }
        return (picture, reach)
    }
}

extension RenderJob {
    /// Rows per band for this job's picture: nil (render it whole) when its pixels fit in
    /// `wholePictureBytes`; otherwise at least `minimumBands` bands of at most `bandBytes`
    /// each, cut at whole rows of tiles so that no band ends in a strip of short tiles.
    public func standardBandHeight(wholePictureBytes: Int, bandBytes: Int, minimumBands: Int) -> Int? {
        let rowBytes = pixelFormat.bytesPerRow(width: size.width)
        let (pictureBytes, overflow) = rowBytes.multipliedReportingOverflow(by: size.height)
        guard overflow || pictureBytes > wholePictureBytes else { return nil }
        let rowsForMinimumBands = (size.height + minimumBands - 1) / minimumBands
        var rows = max(1, min(bandBytes / rowBytes, rowsForMinimumBands))
        if split == .tiles, rows >= tileSize.height { rows -= rows % tileSize.height }
        return rows
    }
}
