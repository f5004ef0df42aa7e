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
    /// The stops as segments of the gradient, for colouring.
    private let gradient: [Segment]

    /// Creates a palette; traps unless there are stops, the cycle is finite and positive,
    /// and the offset is finite.
    public init(stops: [Stop], cycle: Double, offset: Double = 0) {
        precondition(!stops.isEmpty, "a palette needs at least one colour")
        precondition(cycle.isFinite && cycle > 0, "a palette cycle must be positive")
        precondition(offset.isFinite, "a palette offset must be finite")
        self.stops = stops.sorted { $0.position < $1.position }
        self.cycle = cycle
        self.offset = offset - offset.rounded(.down)
        gradient = Self.segments(of: self.stops)
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
    public func color(at position: Double) -> (red: UInt8, green: UInt8, blue: UInt8) {
        gradient.withUnsafeBufferPointer { Self.color(at: position, offset: offset, in: $0) }
    }

    /// Runs `body` with the palette's colouring, for a row of pixels: the table is
    /// borrowed once, not once per pixel.
    func withColoring<Result>(_ body: (Coloring) -> Result) -> Result {
        gradient.withUnsafeBufferPointer { body(Coloring(gradient: $0, offset: offset)) }
    }

    /// The palette's colouring of one row's pixels.
    struct Coloring {
        fileprivate let gradient: UnsafeBufferPointer<Segment>
        let offset: Double

        /// Writes the colour `fraction` of the way through the gradient (after the offset) into `pixel[0...2]`.
        @inline(__always)
        func write(fraction: Double, into pixel: UnsafeMutablePointer<UInt8>) {
            let color = Palette.color(at: fraction, offset: offset, in: gradient)
            pixel[0] = color.red
            pixel[1] = color.green
            pixel[2] = color.blue
        }
    }

    /// The stretch of the gradient that ends at one stop (or, for the last, wraps to the first),
    /// with what blending a position in it needs worked out once, by the same operations.
    fileprivate struct Segment {
        /// The upper stop's position: a position below it (and not below an earlier one) is in this segment.
        let end: Double
        /// The lower stop's position.
        let start: Double
        /// From the lower stop to the upper, wrapping; 1 where that is not positive.
        let span: Double
        /// The lower stop's red, green and blue, and the upper's minus them.
        let base: (Double, Double, Double)
        let rise: (Double, Double, Double)
    }

    /// One segment for each stop (the one ending there) and one wrapping past the last, in order.
    private static func segments(of stops: [Stop]) -> [Segment] {
        (0...stops.count).map { upper in
            let lowerStop = stops[(upper - 1 + stops.count) % stops.count]
            let upperStop = upper == stops.count ? stops[0] : stops[upper]
            var span =
                upper == stops.count
                ? 1 + upperStop.position - lowerStop.position : upperStop.position - lowerStop.position
            if span <= 0 { span = 1 }
            func rise(_ a: UInt8, _ b: UInt8) -> Double { Double(b) - Double(a) }
            return Segment(
                end: upper == stops.count ? .infinity : upperStop.position, start: lowerStop.position, span: span,
                base: (Double(lowerStop.red), Double(lowerStop.green), Double(lowerStop.blue)),
                rise: (
                    rise(lowerStop.red, upperStop.red), rise(lowerStop.green, upperStop.green),
                    rise(lowerStop.blue, upperStop.blue)
                ))
        }
    }

    /// The colour at `position` cycles into the gradient, after `offset`.
    ///
    /// A position too large to keep its fraction (or not a number at all) has no place
    /// in the cycle; the start stands in for it rather than a conversion trapping below.
    @inline(__always)
    private static func color(
        at position: Double, offset: Double, in gradient: UnsafeBufferPointer<Segment>
    ) -> (red: UInt8, green: UInt8, blue: UInt8) {
        var t = position.isFinite ? position + offset : offset
        t -= t.rounded(.down)
        // The first stop above t ends t's segment; past the last stop, the wrapping one.
        var upper = 0
        while !(gradient[upper].end > t) { upper += 1 }
        let segment = gradient[upper]
        var offset = t - segment.start
        if offset < 0 { offset += 1 }
        let mix = offset / segment.span
        return (
            UInt8((segment.base.0 + segment.rise.0 * mix).rounded()),
            UInt8((segment.base.1 + segment.rise.1 * mix).rounded()),
            UInt8((segment.base.2 + segment.rise.2 * mix).rounded())
        )
    }
}
