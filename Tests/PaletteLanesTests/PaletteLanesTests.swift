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

    /// `mandel_palette_paint` takes eight lanes with AVX-512, four with AVX2 (`MANDEL_PALETTE_LANES`);
    /// `mandel_palette_paint_4` takes four wherever there is AVX2, so that an AVX-512 machine tests
    /// the four-lane path too. On a processor with neither, both sides are the one-pixel path.
    @Test(
        "eight or four at a time, every pixel as the one-pixel path colours it, exact halves included",
        arguments: [8, 4])
    func lanesMatchOnePixel(lanes: Int) {
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
            let paint = lanes == 8 ? mandel_palette_paint : mandel_palette_paint_4
            paint(counts, values, count, 100, 1, 0, table.baseAddress!, 3, &painted)
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

    /// The shade the scalar path gave, `255 − ⌊count · 255 / limit⌋`, and black for the set.
    static func shade(_ count: UInt32, limit: UInt32) -> UInt8 {
        count >= limit ? 0 : UInt8(255 - (Double(count) * (255.0 / Double(limit))).rounded(.down))
    }

    @Test(
        "gray: every count's shade as the scalar path gives it, black from the limit on, in rows of every length",
        arguments: [1, 2, 3, 50, 51, 255, 256, 257, 1000, 20_000, 100_000_000] as [UInt32])
    func grayRow(limit: UInt32) {
        // Every count up to 1,000 past the limit's small cases; for large limits, the counts
        // around each place where the shade changes (k · limit / 255 and the one before).
        var counts: [UInt32] = Array(0...min(limit + 2, 1_000))
        if limit > 1_000 {
            for k in 0...255 {
                let edge = UInt32((Double(limit) * Double(k) / 255).rounded(.up))
                counts += [edge &- 1, edge, edge + 1, limit &- 1, limit].filter { $0 <= limit + 1 }
            }
        }
        // Every row length up to 70 (ragged ends of any vector width), then the whole list.
        for length in Array(1...min(70, counts.count)) + [counts.count] {
            var pixels = [UInt8](repeating: 7, count: length)
            mandel_gray_row(counts, length, limit, &pixels)
            let wrong = (0..<length).filter { pixels[$0] != Self.shade(counts[$0], limit: limit) }
            #expect(wrong.isEmpty, "limit \(limit), length \(length): counts \(wrong.prefix(5).map { counts[$0] })")
        }
        // Fixed points: the fastest escape is white, the set black, one short of it the darkest gray.
        var ends = [UInt8](repeating: 7, count: 3)
        mandel_gray_row([0, limit, limit - 1], 3, limit, &ends)
        #expect(ends[0] == 255 && ends[1] == 0 && ends[2] == (limit == 1 ? 255 : Self.shade(limit - 1, limit: limit)))
        if limit == 256 { #expect(ends[2] == 1) }
    }
}
