import MandelbrotCore
import Testing

@Suite("Palette")
struct PaletteTests {
    @Test("a custom gradient is parsed from hex colours, evenly spaced")
    func customGradient() throws {
        let palette = try PaletteSpecification.parse("#000764, #206bcb,#edffff,#ffaa00,#000200")
        #expect(palette.stops.count == 5)
        #expect(palette.stops.map(\.position) == [0, 0.2, 0.4, 0.6, 0.8])
        #expect(palette.color(at: 0) == (0x00, 0x07, 0x64))
        #expect(palette.color(at: 0.4) == (0xed, 0xff, 0xff))
        #expect(palette.color(at: 1.4) == (0xed, 0xff, 0xff), "positions wrap around the cycle")
    }

    @Test(
        "bad palettes are refused with a line naming what is wrong",
        arguments: [
            ("sunset", "unknown palette 'sunset'"),
            ("#12345g,#000000", "'#12345g' is not a colour"),
            ("#12345,#000000", "'#12345' is not a colour"),
            ("#000000", "at least two colours"),
            ("#000000,", "'' is not a colour"),
            ("000000,ffffff", "'000000' is not a colour"),
        ])
    func invalid(text: String, message: String) {
        #expect(throws: PaletteSpecification.Invalid.self) { _ = try PaletteSpecification.parse(text) }
        do {
            _ = try PaletteSpecification.parse(text)
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test("every named palette parses by name, and the offset shifts the gradient")
    func named() throws {
        // Each name finds its own palette: colours along the gradient match it and no other.
        func colors(_ palette: Palette) -> [[UInt8]] {
            (0..<32).map {
                let c = palette.color(at: Double($0) / 32)
                return [c.red, c.green, c.blue]
            }
        }
        for entry in Palette.named {
            let parsed = colors(try PaletteSpecification.parse(entry.name))
            for other in Palette.named {
                #expect(
                    (parsed == colors(other.palette)) == (other.name == entry.name),
                    "\(entry.name) against \(other.name)")
            }
        }
        let shifted = Palette.classic.with(cycle: 64, offset: 0.42)
        #expect(shifted.color(at: 0) == Palette.classic.color(at: 0.42))
    }

    @Test("the palette's table of segments colours every position as interpolating between its stops does")
    func segmentsMatchInterpolation() {
        let stop = Palette.Stop.init(position:red:green:blue:)
        let palettes =
            Palette.named.map(\.palette) + [
                // Uneven stops, the first above 0 (positions below it wrap from the last).
                Palette(stops: [stop(0.3, 250, 0, 9), stop(0.35, 0, 255, 1), stop(0.9, 17, 4, 200)], cycle: 10),
                // Two stops at one place (a segment of no width), and a single stop.
                Palette(stops: [stop(0, 0, 0, 0), stop(0.5, 255, 0, 0), stop(0.5, 0, 255, 0)], cycle: 3, offset: 0.7),
                Palette(stops: [stop(0.25, 9, 99, 199)], cycle: 1),
            ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) * 0x1p-53
        }
        for palette in palettes {
            // The stops, a hair either side of each, the ends of the cycle, values that have
            // no place in it, and positions at random over several cycles.
            var positions: [Double] = [0, 1, -0.0, .infinity, -.infinity, .nan, 1e300, -1e300]
            for stop in palette.stops {
                let position = stop.position - palette.offset
                positions += [position, position.nextUp, position.nextDown, position + 1, position - 1]
            }
            positions += (0..<4000).map { _ in random() * 8 - 4 }
            for position in positions {
                let expected = Self.interpolated(palette, at: position)
                #expect(palette.color(at: position) == expected, "at \(position)")
            }
        }
    }

    /// The colour at `position`, worked out from the stops directly: the definition the table must keep.
    static func interpolated(_ palette: Palette, at position: Double) -> (UInt8, UInt8, UInt8) {
        let stops = palette.stops
        var t = position.isFinite ? position + palette.offset : palette.offset
        t -= t.rounded(.down)
        let upper = stops.firstIndex { $0.position > t } ?? stops.count
        let lower = stops[(upper - 1 + stops.count) % stops.count]
        let next = upper == stops.count ? stops[0] : stops[upper]
        var span = upper == stops.count ? 1 + next.position - lower.position : next.position - lower.position
        var offset = t - lower.position
        if offset < 0 { offset += 1 }
        if span <= 0 { span = 1 }
        let mix = offset / span
        func blend(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * mix).rounded()) }
        return (blend(lower.red, next.red), blend(lower.green, next.green), blend(lower.blue, next.blue))
    }
}
