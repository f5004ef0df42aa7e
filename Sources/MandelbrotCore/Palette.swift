import PaletteLanes

/// A colour gradient that smooth colouring walks along as the escape value grows.
public struct Palette: Sendable {
    /// One colour at a position in [0, 1) of the cycle.
    public struct Stop: Sendable {
        /// Where the colour sits in the cycle, from 0 up to (not including) 1.
        public var position: Double
        /// Red, green and blue, 0…255.
        public var red: UInt8, green: UInt8, blue: UInt8

        /// Creates a stop.
        public init(position: Double, red: UInt8, green: UInt8, blue: UInt8) {
            self.position = position
            self.red = red
            self.green = green
            self.blue = blue
        }
    }

    /// The stops, by increasing position; the gradient wraps from the last back to the first.
    public let stops: [Stop]
    /// How many iterations one trip through the gradient takes.
    public let cycle: Double
    /// Where in the gradient an escape value of 0 falls, as a fraction of the cycle (0 ≤ offset < 1).
    public let offset: Double
    /// The stops as segments of the gradient, for colouring (`PaletteLanes`' table).
    private let table: [Double]

    /// Creates a palette; traps unless there are stops, each in [0, 1), the cycle is finite
    /// and positive, and the offset is finite.
    public init(stops: [Stop], cycle: Double, offset: Double = 0) {
        precondition(!stops.isEmpty, "a palette needs at least one colour")
        precondition(cycle.isFinite && cycle > 0, "a palette cycle must be positive")
        precondition(offset.isFinite, "a palette offset must be finite")
        precondition(stops.allSatisfy { (0..<1).contains($0.position) }, "a stop's position must be in [0, 1)")
        self.stops = stops.sorted { $0.position < $1.position }
        self.cycle = cycle
        self.offset = offset - offset.rounded(.down)
        table = Self.table(of: self.stops)
    }

    /// The same gradient with another cycle length and offset.
    public func with(cycle: Double, offset: Double) -> Palette {
        Palette(stops: stops, cycle: cycle, offset: offset)
    }

    /// Colours spread evenly over the cycle, in order.
    public init(evenlySpaced colors: [(red: UInt8, green: UInt8, blue: UInt8)], cycle: Double = 64) {
        precondition(!colors.isEmpty, "a palette needs at least one colour")
        self.init(
            stops: colors.enumerated().map { index, color in
                Stop(
                    position: Double(index) / Double(colors.count), red: color.red, green: color.green, blue: color.blue
                )
            },
            cycle: cycle)
    }

    /// Deep blue through white to gold: the gradient most renderers ship as their default.
    public static let classic = Palette(
        stops: [
            Stop(position: 0.0, red: 0, green: 7, blue: 100),
            Stop(position: 0.16, red: 32, green: 107, blue: 203),
            Stop(position: 0.42, red: 237, green: 255, blue: 255),
            Stop(position: 0.6425, red: 255, green: 170, blue: 0),
            Stop(position: 0.8575, red: 0, green: 2, blue: 0),
        ],
        cycle: 64
    )

    /// The colour at `position` cycles into the palette, after its offset (only the fraction counts).
    ///
    /// A position too large to keep its fraction (or not a number at all) has no place
    /// in the cycle; the start stands in for it.
    public func color(at position: Double) -> (red: UInt8, green: UInt8, blue: UInt8) {
        var pixel: (UInt8, UInt8, UInt8) = (0, 0, 0)
        withColoring { coloring in
            withUnsafeMutableBytes(of: &pixel) { coloring.write(fraction: position, into: $0.baseAddress!) }
        }
        return pixel
    }

    /// Runs `body` with the palette's colouring, for a row of pixels: the table is
    /// borrowed once, not once per pixel.
    func withColoring<Result>(_ body: (Coloring) -> Result) -> Result {
        table.withUnsafeBufferPointer {
            body(Coloring(table: $0.baseAddress!, segments: stops.count + 1, palette: self))
        }
    }

    /// The palette's colouring of one row's pixels, in C (`PaletteLanes`), eight or four at a time where it can.
    struct Coloring {
        fileprivate let table: UnsafePointer<Double>
        fileprivate let segments: Int
        let palette: Palette

        /// Writes the colour `fraction` of the way through the gradient (after the offset) into `pixel[0...2]`.
        @inline(__always)
        func write(fraction: Double, into pixel: UnsafeMutableRawPointer) {
            mandel_palette_color(
                fraction, palette.offset, table, segments, pixel.assumingMemoryBound(to: UInt8.self))
        }

        /// Smooth colouring of a row: black where the count reached `limit`, elsewhere the
        /// colour `smooth / cycle` of the way through the gradient, as RGB.
        func paint(
            counts: UnsafePointer<UInt32>, smooth: UnsafePointer<Float>, count: Int, limit: UInt32,
            into pixels: UnsafeMutablePointer<UInt8>
        ) {
            mandel_palette_paint(counts, smooth, count, limit, palette.cycle, palette.offset, table, segments, pixels)
        }
    }

    /// The stops as `PaletteLanes`' table: for each segment of the gradient (the one ending at
    /// each stop, and one wrapping past the last), where it starts, its span and its colours,
    /// row by row, then the stops' positions.
    private static func table(of stops: [Stop]) -> [Double] {
        let segments = (0...stops.count).map { upper in
            let lowerStop = stops[(upper - 1 + stops.count) % stops.count]
            let upperStop = upper == stops.count ? stops[0] : stops[upper]
            var span =
                upper == stops.count
                ? 1 + upperStop.position - lowerStop.position : upperStop.position - lowerStop.position
            if span <= 0 { span = 1 }
            let lower = [lowerStop.red, lowerStop.green, lowerStop.blue].map(Double.init)
            let upper = [upperStop.red, upperStop.green, upperStop.blue].map(Double.init)
            return [lowerStop.position, span] + lower + zip(lower, upper).map { $1 - $0 }
        }
        let rows = (0..<MANDEL_PALETTE_ENDS).map { row in segments.map { $0[row] } }
        return Array(rows.joined()) + stops.map(\.position)
    }
}
