import LaneBits
import LaneFixtures
import Testing

/// `mandel_equal_lanes` (four vectors of eight) and `mandel_equal_lanes_4` (four of four)
/// as this test target compiles them: without the core's `-march=native`, so the portable
/// loops. The core's vector path, whichever width this machine builds, is the one the
/// bilevel tests check through every pixel of rendered rows.
@Suite("Vector lanes read as bits")
struct LaneBitsTests {
    /// Both functions on the same lanes: the first `4 × width` of `lanes`, vector k taking lanes `width·k ..< width·(k
    /// + 1)`.
    static func bits(_ lanes: [Double], width: Int, value: Double) -> UInt32 {
        if width == 8 {
            func vector(_ k: Int) -> SIMD8<Double> { SIMD8(lanes[(8 * k)..<(8 * k + 8)]) }
            return mandel_equal_lanes(vector(0), vector(1), vector(2), vector(3), value)
        }
        func vector(_ k: Int) -> SIMD4<Double> { SIMD4(lanes[(4 * k)..<(4 * k + 4)]) }
        return mandel_equal_lanes_4(vector(0), vector(1), vector(2), vector(3), value)
    }

    @Test(
        "lane i of vector k is bit 31 − (width·k + i), set exactly where the lane equals the value",
        arguments: [8, 4])
    func everyLaneItsOwnBit(width: Int) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let (lanes, expected) = randomLanes(width: width, value: 51, using: &generator)
            #expect(Self.bits(lanes, width: width, value: 51) == expected)
        }
    }

    @Test("a single lane set lands on its own bit, for each lane of either width", arguments: [8, 4])
    func singleLanes(width: Int) {
        for index in 0..<(4 * width) {
            var lanes = [Double](repeating: 0, count: 4 * width)
            lanes[index] = 7
            #expect(Self.bits(lanes, width: width, value: 7) == 1 << UInt32(31 - index))
        }
    }

    @Test("any lane of four vectors of four is 0 exactly where one is (the free loop's test)")
    func anyZero() {
        var generator = SystemRandomNumberGenerator()
        #expect(checkAnyZero(mandel_any_zero_4, using: &generator) == [])
    }
}
