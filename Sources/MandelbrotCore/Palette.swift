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

    /// Creates a palette; traps unless there are stops, the cycle is finite and positive,
    /// and the offset is finite.
    public init(stops: [Stop], cycle: Double, offset: Double = 0) {
        precondition(!stops.isEmpty, "a palette needs at least one colour")
        precondition(cycle.isFinite && cycle > 0, "a palette cycle must be positive")
        precondition(offset.isFinite, "a palette offset must be finite")
        self.stops = stops.sorted { $0.position < $1.position }
        self.cycle = cycle
        self.offset = offset - offset.rounded(.down)
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

    /// Writes the colour for a smooth escape value into `pixel[0...2]`.
    func write(value: Float, into pixel: UnsafeMutablePointer<UInt8>) {
        write(fraction: Double(value) / cycle, into: pixel)
    }

    /// Writes the colour `fraction` of the way through the gradient (after the offset) into `pixel[0...2]`.
    func write(fraction: Double, into pixel: UnsafeMutablePointer<UInt8>) {
        let color = color(at: fraction)
        pixel[0] = color.red
        pixel[1] = color.green
        pixel[2] = color.blue
    }

    /// The colour at `position` cycles into the palette, after its offset (only the fraction counts).
    public func color(at position: Double) -> (red: UInt8, green: UInt8, blue: UInt8) {
        // A position too large to keep its fraction (or not a number at all) has no place
        // in the cycle; the start stands in for it rather than a conversion trapping below.
        var t = position.isFinite ? position + offset : offset
        t -= t.rounded(.down)
        // Find the stops around t, wrapping past the last one.
        var upper = stops.firstIndex { $0.position > t } ?? stops.count
        let lowerStop = stops[(upper - 1 + stops.count) % stops.count]
        let upperStop: Stop
        var span: Double
        if upper == stops.count {
            upper = 0
            upperStop = stops[0]
            span = 1 + upperStop.position - lowerStop.position
        } else {
            upperStop = stops[upper]
            span = upperStop.position - lowerStop.position
        }
        var offset = t - lowerStop.position
        if offset < 0 { offset += 1 }
        if span <= 0 { span = 1 }
        let mix = offset / span
        func blend(_ a: UInt8, _ b: UInt8) -> UInt8 {
            UInt8((Double(a) + (Double(b) - Double(a)) * mix).rounded())
        }
        return (
            blend(lowerStop.red, upperStop.red), blend(lowerStop.green, upperStop.green),
            blend(lowerStop.blue, upperStop.blue)
        )
    }
}
