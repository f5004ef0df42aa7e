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
}
