import PaletteLanes
import Testing

/// The eight-lane colouring against the one-pixel one, on positions chosen to land on
/// the cases a rounding or a search could get wrong.
@Suite("PaletteLanes")
struct PaletteLanesTests {
    /// A black-to-(1, 2, 255) gradient over the first half of the cycle, then back: the
    /// table `Palette` would build for stops at 0 and 0.5.
    static let table: [Double] = {
        let segments = [
            // start, span, red, green, blue, and the rises to the next stop
            [0.5, 1.0, 1, 2, 255, -1, -2, -255],  // below the first stop (none here: it is at 0)
            [0, 0.5, 0, 0, 0, 1, 2, 255],  // from the first stop to the second
            [0.5, 0.5, 1, 2, 255, -1, -2, -255],  // from the second, wrapping to the first
        ]
        let rows = (0..<Int(MANDEL_PALETTE_ENDS)).map { row in segments.map { $0[row] } }
        return Array(rows.joined()) + [0, 0.5]
    }()

    /// The lanes are eight with AVX-512, four with AVX2 (`MANDEL_PALETTE_LANES`); on a
    /// processor with neither, both sides are the one-pixel path.
    @Test("eight or four at a time, every pixel as the one-pixel path colours it, exact halves included")
    func lanesMatchOnePixel() {
        // Positions in eighths of the cycle land on exact halves of a blend (a quarter of
        // the way is half of the first segment: red 0.5, green 1, blue 127.5), on the stops
        // themselves, and on the wrap; quarters of eighths and a few odd values fill the rest.
        var values: [Float] = (0..<64).map { Float($0) / 32 }
        values += [0.1, 0.7, 0.999_999, 1e-30, 3.5, 1e30, .greatestFiniteMagnitude, 0]
        let count = values.count
        var counts = [UInt32](repeating: 0, count: count)
        counts[5] = 100  // in the set: black
        counts[count - 1] = 100
        var painted = [UInt8](repeating: 7, count: count * 3)
        Self.table.withUnsafeBufferPointer { table in
            mandel_palette_paint(counts, values, count, 100, 1, 0, table.baseAddress!, 3, &painted)
        }
        for index in 0..<count {
            var wanted: [UInt8] = [0, 0, 0]
            if counts[index] < 100 {
                Self.table.withUnsafeBufferPointer { table in
                    mandel_palette_color(Double(values[index]), 0, table.baseAddress!, 3, &wanted)
                }
            }
            #expect(Array(painted[(index * 3)..<(index * 3 + 3)]) == wanted, "value \(values[index])")
        }
        // The exact half rounds away from zero: a quarter of the cycle is (0.5, 1, 127.5).
        #expect(Array(painted[24..<27]) == [1, 1, 128])
    }
}
