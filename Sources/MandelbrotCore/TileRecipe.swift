import Synchronization

/// Everything that decides the result of one pass's tiles, as bytes another process can
/// render from: the sample grid, the kernel and its limits, the Julia constant, a deep
/// view's reference orbit (see ``DeepReference/encode(to:)``), the colouring, its palette
/// and (for histogram colouring's second pass) the sealed histogram. A process that decodes
/// it renders any tile of the pass with the same code, and so the same bytes, as a thread
/// of the render would.
///
/// A tile's result is its pixel rows (with each pixel's escape count too when the render
/// keeps them for a cost map), or, for histogram colouring's counting pass, the histogram
/// bin of each escaped sample, which the render adds to its own histogram.
package struct TileRecipe: Sendable {
    /// The version of the encoding; a decoder refuses any other.
    package static let version: UInt32 = 2

    /// What a tile's result holds.
    enum Kind: UInt8 {
        case counting = 1
        case pixels = 2
        case supersampled = 3
    }

    let kind: Kind
    let samples: SampleCounter
    let colorizer: RowColorizer?
    let supersampling: Int
    /// The pixel format of a colouring pass.
    let format: PixelFormat
    /// Whether a tile's result carries each pixel's escape count after its pixels.
    let keepsCounts: Bool
    /// The histogram: for the counting pass, what gives a value its bin; for the
    /// colouring pass of histogram colouring, the sealed distribution.
    let histogram: EscapeHistogram?

    /// The largest sample grid a recipe may describe, on either side: 2^28 samples a row.
    static let maximumGridWidth = 1 << 28

    init(
        kind: Kind, samples: SampleCounter, colorizer: RowColorizer?, supersampling: Int, format: PixelFormat,
        keepsCounts: Bool, histogram: EscapeHistogram?
    ) {
        self.kind = kind
        self.samples = samples
        self.colorizer = colorizer
        self.supersampling = supersampling
        self.format = format
        self.keepsCounts = keepsCounts
        self.histogram = histogram
    }

    /// Records that the processes that rendered from this recipe built their own tables of its
    /// deep view in `seconds` (the longest of them): the report's table phase.
    package func recordTableBuiltElsewhere(seconds: Double) {
        samples.deep?.addTableBuiltElsewhere(seconds: seconds)
    }

    /// The seconds this process spent building the table of the deep view it decoded; 0 without one.
    package var tableSeconds: Double { samples.deep?.phases.tableSeconds ?? 0 }

    /// The picture's width in pixels.
    var pictureWidth: Int { samples.grid.size.width / supersampling }

    /// The bytes of a tile's result for `rect`: what the receiving side expects exactly
    /// (for the counting pass, the most it may hold).
    package func resultBytes(for rect: PixelRect) -> Int {
        switch kind {
        case .counting: 4 + rect.pixelCount * supersampling * supersampling * 4
        case .pixels, .supersampled:
            rect.height * rowBytes(for: rect) + (keepsCounts ? rect.pixelCount * 4 : 0)
        }
    }

    /// The bytes of one row of `rect`'s pixels: whole bytes for a bilevel row, so a tile
    /// that starts or ends inside a byte carries that byte, its own bits set and no others.
    func rowBytes(for rect: PixelRect) -> Int {
        switch format {
        case .bilevel: (rect.maxX + 7) / 8 - rect.x / 8
        case .gray: rect.width
        case .rgb: rect.width * 3
        }
    }
}

// MARK: - Encoding

extension TileRecipe {
    /// The recipe as bytes, version first.
    package var encoded: [UInt8] {
        // Room for every byte from the start: a deep view's orbit is most of them, and an array
        // that grows past its capacity copies them all into one twice as large.
        let capacity =
            256 + samples.grid.realParts.count * 8 + (samples.deep?.encodedBytes ?? 0)
            + (colorizer?.palette.stops.count ?? 0) * 11 + (histogram?.binCount ?? 0) * 8
        var writer = WireWriter(capacity: capacity)
        writer.write(Self.version)
        writer.write(kind.rawValue)
        writer.write(UInt32(supersampling))
        writer.write(UInt8(format.wireCode))
        writer.write(keepsCounts)
        // The grid.
        writer.write(UInt32(samples.grid.size.width))
        writer.write(UInt32(samples.grid.size.height))
        writer.write(UInt32(samples.grid.realParts.count))
        for value in samples.grid.realParts { writer.write(value) }
        Self.write(samples.grid.imaginaryParts.formula, to: &writer)
        // The kernel.
        writer.write(UInt8(samples.kernel == .simd ? 1 : 0))
        writer.write(UInt32(samples.limit))
        writer.write(UInt32(samples.usefulLimit))
        writer.write(samples.julia != nil)
        if let julia = samples.julia {
            writer.write(julia.real)
            writer.write(julia.imaginary)
        }
        // A deep view's reference.
        writer.write(samples.deep != nil)
        samples.deep?.encode(to: &writer)
        // The colouring.
        writer.write(colorizer != nil)
        if let colorizer {
            writer.write(UInt8(ColorScheme.allCases.firstIndex(of: colorizer.scheme)!))
            writer.write(UInt32(colorizer.limit))
            writer.write(colorizer.palette.cycle)
            writer.write(colorizer.palette.offset)
            writer.write(UInt32(colorizer.palette.stops.count))
            for stop in colorizer.palette.stops {
                writer.write(stop.position)
                writer.write(stop.red)
                writer.write(stop.green)
                writer.write(stop.blue)
            }
        }
        // The histogram: its limit, and the sealed counts when colouring by it.
        writer.write(histogram != nil)
        if let histogram {
            writer.write(UInt32(samples.limit))
            let sealed = kind != .counting
            writer.write(sealed)
            if sealed { writer.write(array: histogram.distribution().inside) }
        }
        assert(writer.bytes.count <= capacity, "the recipe outgrew its room: \(writer.bytes.count) > \(capacity)")
        return writer.bytes
    }

    private static func write(_ formula: SampleGrid.ImaginaryParts.Formula, to writer: inout WireWriter) {
        switch formula {
        case .view(let center, let halfHeight, let spacing):
            writer.write(UInt8(1))
            writer.write(center)
            writer.write(halfHeight)
            writer.write(spacing)
        case .benchmarksGame(let side):
            writer.write(UInt8(2))
            writer.write(side)
        case .coarse(let base, let every, let samples):
            writer.write(UInt8(3))
            writer.write(UInt32(every))
            writer.write(UInt32(samples))
            write(base, to: &writer)
        case .shifted(let base, let first):
            writer.write(UInt8(4))
            writer.write(UInt32(first))
            write(base, to: &writer)
        }
    }

    /// Decodes a recipe, checking every field: a count out of range (the command line's ranges,
    /// ``ValueLimits``), a number that is not finite, an unknown code, a wrong version or bytes
    /// left over throw.
    package init(decoding bytes: UnsafeRawBufferPointer) throws(WireReader.Malformed) {
        var reader = WireReader(bytes)
        let version = try reader.read(UInt32.self)
        guard version == Self.version else {
            throw .init("recipe version \(version); this program reads version \(Self.version)")
        }
        guard let kind = Kind(rawValue: try reader.read(UInt8.self)) else { throw .init("unknown recipe kind") }
        let supersampling = try reader.readCount(in: 1...ValueLimits.maximumSupersampling, "supersampling")
        guard let format = PixelFormat(wireCode: try reader.read(UInt8.self)) else {
            throw .init("unknown pixel format")
        }
        let keepsCounts = try reader.readBool()
        let width = try reader.readCount(in: 1...Self.maximumGridWidth, "grid width")
        let height = try reader.readCount(in: 1...Self.maximumGridWidth, "grid height")
        let columns = try reader.readCount(in: width...width, "grid columns")
        guard columns <= reader.remaining / 8 else { throw .init("grid of \(columns) columns in a short message") }
        var realParts: [Double] = []
        realParts.reserveCapacity(columns)
        for _ in 0..<columns { realParts.append(try reader.readFiniteDouble("a column's real part")) }
        let formula = try Self.readFormula(&reader, depth: 0)
        let lastRow = formula.largestRow(seenFromRows: height)
        guard let lastRow, lastRow <= ValueLimits.maximumGridRow else {
            throw .init(
                "a grid formula that reaches row \(lastRow.map(String.init) ?? "past 2^63"), beyond \(ValueLimits.maximumGridRow)"
            )
        }
        guard width % supersampling == 0, height % supersampling == 0 else {
            throw .init("a \(width)x\(height) grid is not \(supersampling) samples a pixel")
        }
        let grid = SampleGrid(
            size: ImageSize(width: width, height: height), realParts: realParts,
            imaginaryParts: .init(formula: formula, endIndex: height))
        let kernel: IterationKernel = try reader.readBool() ? .simd : .scalar
        let limit = try reader.readCount(in: 1...ValueLimits.maximumIterations, "iteration limit")
        let usefulLimit = try reader.readCount(in: 1...limit, "useful limit")
        var julia: JuliaConstant?
        if try reader.readBool() {
            let real = try reader.readDouble()
            let imaginary = try reader.readDouble()
            guard real.isFinite, imaginary.isFinite else { throw .init("a Julia constant that is not finite") }
            julia = JuliaConstant(real: real, imaginary: imaginary)
        }
        let deep = try reader.readBool() ? try DeepReference.decode(from: &reader, limit: limit) : nil
        let samples = SampleCounter(
            grid: grid, kernel: kernel, limit: limit, usefulLimit: usefulLimit, julia: julia, deep: deep)
        var scheme: ColorScheme?
        var colorLimit = limit
        var palette = Palette.classic
        if try reader.readBool() {
            let code = Int(try reader.read(UInt8.self))
            guard code < ColorScheme.allCases.count else { throw .init("unknown colouring \(code)") }
            scheme = ColorScheme.allCases[code]
            colorLimit = try reader.readCount(in: 1...ValueLimits.maximumIterations, "colouring limit")
            let cycle = try reader.readDouble()
            let offset = try reader.readDouble()
            let stopCount = try reader.readCount(in: 1...4096, "palette stops")
            var stops: [Palette.Stop] = []
            for _ in 0..<stopCount {
                let position = try reader.readDouble()
                guard (0..<1).contains(position) else { throw .init("a palette stop at \(position)") }
                stops.append(
                    Palette.Stop(
                        position: position, red: try reader.read(), green: try reader.read(), blue: try reader.read()))
            }
            guard ValueLimits.paletteCycle.contains(cycle), offset.isFinite else {
                throw .init("a palette cycle of \(cycle) (from \(ValueLimits.paletteCycle)) or offset of \(offset)")
            }
            palette = Palette(stops: stops, cycle: cycle, offset: offset)
        }
        var histogram: EscapeHistogram?
        if try reader.readBool() {
            let histogramLimit = try reader.readCount(in: limit...limit, "histogram limit")
            let made = EscapeHistogram(limit: histogramLimit)
            if try reader.readBool() {
                let counts = try reader.readArray(UInt64.self, limit: made.binCount)
                guard counts.count == made.binCount else { throw .init("\(counts.count) histogram bins") }
                made.seal(counts: counts)
            }
            histogram = made
        }
        try reader.expectEnd()
        let colorizer = scheme.map {
            RowColorizer(scheme: $0, limit: colorLimit, palette: palette, histogram: histogram)
        }
        switch kind {
        case .counting:
            guard histogram != nil else { throw .init("a counting recipe without a histogram") }
        case .pixels, .supersampled:
            guard let scheme, format == scheme.pixelFormat(supersampling: supersampling) else {
                throw .init("a colouring recipe whose format does not match its colouring")
            }
            guard (kind == .supersampled) == (supersampling > 1) else { throw .init("supersampling mismatch") }
            if scheme == .histogram {
                guard histogram?.sealed.load() != nil else { throw .init("histogram colouring without its histogram") }
            }
        }
        self.init(
            kind: kind, samples: samples, colorizer: colorizer, supersampling: supersampling, format: format,
            keepsCounts: keepsCounts && kind != .counting, histogram: histogram)
    }

    private static func readFormula(
        _ reader: inout WireReader, depth: Int
    ) throws(WireReader.Malformed) -> SampleGrid.ImaginaryParts.Formula {
        guard depth < 4 else { throw .init("grid formula nested too deep") }
        switch try reader.read(UInt8.self) {
        case 1:
            return .view(
                center: try reader.readFiniteDouble("the grid's centre"),
                halfHeight: try reader.readFiniteDouble("the grid's half height"),
                spacing: try reader.readFiniteDouble("the grid's spacing"))
        case 2: return .benchmarksGame(side: try reader.readFiniteDouble("the Benchmarks Game side"))
        case 3:
            let every = try reader.readCount(in: 1...Self.maximumGridWidth, "coarse step")
            let samples = try reader.readCount(in: 1...64, "coarse samples")
            return .coarse(try readFormula(&reader, depth: depth + 1), every: every, samples: samples)
        case 4:
            let first = try reader.readCount(in: 0...Self.maximumGridWidth, "first row")
            return .shifted(try readFormula(&reader, depth: depth + 1), first: first)
        case let code: throw .init("unknown grid formula \(code)")
        }
    }
}

extension PixelFormat {
    var wireCode: UInt8 {
        switch self {
        case .bilevel: 1
        case .gray: 2
        case .rgb: 3
        }
    }

    init?(wireCode: UInt8) {
        switch wireCode {
        case 1: self = .bilevel
        case 2: self = .gray
        case 3: self = .rgb
        default: return nil
        }
    }
}

extension EscapeHistogram {
    /// Seals the histogram with `counts`, counted elsewhere: what another process's
    /// colouring pass reads.
    func seal(counts: [UInt64]) {
        var below = [UInt64](repeating: 0, count: counts.count)
        var running: UInt64 = 0
        for (index, count) in counts.enumerated() {
            below[index] = running
            running &+= count
        }
        _ = sealed.storeIfNil(
            SealedDistribution(
                Distribution(below: below, inside: counts, total: running),
                statistics: MergeStatistics(sharing: sharing, batches: 0, values: 0, mergeSeconds: 0, waitSeconds: 0)))
    }
}

extension SampleCounter {
    /// A counter from its parts, as a recipe carries them.
    init(
        grid: SampleGrid, kernel: IterationKernel, limit: Int, usefulLimit: Int, julia: JuliaConstant?,
        deep: DeepReference?
    ) {
        self.grid = grid
        self.kernel = kernel
        self.limit = limit
        self.usefulLimit = usefulLimit
        self.julia = julia
        self.deep = deep
        exactPixels = ExactPixelTally()
    }
}

// MARK: - Rendering a tile, in the process that decoded the recipe

extension TileRecipe {
    /// A renderer's memory between tiles: a buffer as wide as the picture and as tall as
    /// the tallest tile so far, which tiles are rendered into before their bytes are copied out.
    package final class Workspace {
        var canvas: PixelBuffer?
        var counts: IterationCounts?

        package init() {}
    }

    /// Renders `rect` and appends its result to `writer`.
    ///
    /// - Parameter proceed: Asked between segments of rows; false stops the tile.
    /// - Returns: The tile's useful iterations, or nil if `proceed` stopped it.
    /// - Throws: When `rect` lies outside the picture, or its buffer cannot be had.
    package func render(
        _ rect: PixelRect, appendingTo writer: inout WireWriter, workspace: Workspace, proceed: () -> Bool
    ) throws(WireReader.Malformed) -> UInt64? {
        let k = supersampling
        try checkInside(rect)
        if kind == .counting { return renderCounting(rect, appendingTo: &writer, proceed: proceed) }
        let width = pictureWidth
        if !workspace.fits(self, rect) {
            do {
                workspace.canvas = try PixelBuffer(size: ImageSize(width: width, height: rect.height), format: format)
                workspace.counts =
                    keepsCounts ? try IterationCounts(size: ImageSize(width: width, height: rect.height)) : nil
            } catch {
                throw .init("\(error)")
            }
        }
        let canvas = workspace.canvas!
        let rowBytes = rowBytes(for: rect)
        let firstByte = format == .bilevel ? rect.x / 8 : rect.x * format.channels
        if format == .bilevel {
            // Marking sets and clears bits of shared bytes one by one: start the tile's bytes clear.
            for row in 0..<rect.height { (canvas.row(row) + firstByte).update(repeating: 0, count: rowBytes) }
        }
        let target = BandTarget(canvas: canvas, firstRow: rect.y, counts: workspace.counts)
        let renderer: any TileRenderer =
            kind == .pixels
            ? PixelTileRenderer(samples: samples, colorizer: colorizer!)
            : SupersampledTileRenderer(samples: samples, colorizer: colorizer!, supersampling: k)
        guard let iterations = renderer.render(rect, into: target, isCancelled: { !proceed() }) else { return nil }
        for row in 0..<rect.height {
            writer.append(UnsafeRawBufferPointer(start: canvas.row(row) + firstByte, count: rowBytes))
        }
        if let counts = workspace.counts {
            for row in 0..<rect.height {
                writer.append(UnsafeRawBufferPointer(start: counts.address(x: rect.x, y: row), count: rect.width * 4))
            }
        }
        return iterations
    }

    /// The counting pass: the number of escaped samples, then the bin of each.
    private func renderCounting(_ rect: PixelRect, appendingTo writer: inout WireWriter, proceed: () -> Bool) -> UInt64?
    {
        let k = supersampling
        let histogram = histogram!
        let segment = min(rect.width * k, segmentWidth)
        var bins: [UInt32] = []
        var iterations: UInt64 = 0
        let finished = withUnsafeTemporaryAllocation(byteCount: segment * 8, alignment: 8) { scratch in
            let counts = scratch.baseAddress!.bindMemory(to: UInt32.self, capacity: segment)
            let smooth = (scratch.baseAddress! + segment * 4).bindMemory(to: Float.self, capacity: segment)
            let limit = UInt32(samples.limit)
            for row in (rect.y * k)..<(rect.maxY * k) {
                for left in stride(from: rect.x * k, to: rect.maxX * k, by: segmentWidth) {
                    if !proceed() { return false }
                    let width = min(segmentWidth, rect.maxX * k - left)
                    iterations += samples.count(row: row, firstColumn: left, count: width, into: counts, smooth: smooth)
                    for index in 0..<width where counts[index] < limit {
                        bins.append(UInt32(histogram.bin(of: smooth[index])))
                    }
                }
            }
            return true
        }
        guard finished else { return nil }
        writer.write(UInt32(bins.count))
        bins.withUnsafeBytes { writer.append($0) }
        return iterations
    }
}
