import LaneBits
import Testing

/// `mandel_equal_lanes` as this test target compiles it: without the core's
/// `-march=native`, so the portable loop. The core's AVX-512 path is the one the
/// bilevel tests check through every pixel of rendered rows.
@Suite("Vector lanes read as bits")
struct LaneBitsTests {
    @Test("lane i of vector k is bit 31 − (8k + i), set exactly where the lane equals the value")
    func everyLaneItsOwnBit() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var lanes = [Double](repeating: 0, count: 32)
            var expected: UInt32 = 0
            for index in 0..<32 {
                let equal = Bool.random(using: &generator)
                // Near misses too: one step of a count below or above the value.
                lanes[index] = equal ? 51 : [50, 52, 0, -51].randomElement(using: &generator)!
                if equal { expected |= 1 << UInt32(31 - index) }
            }
            func vector(_ k: Int) -> SIMD8<Double> { SIMD8(lanes[(8 * k)..<(8 * k + 8)]) }
            #expect(mandel_equal_lanes(vector(0), vector(1), vector(2), vector(3), 51) == expected)
        }
    }

    @Test("a single lane set lands on its own bit, for each of the 32")
    func singleLanes() {
        for index in 0..<32 {
            var lanes = [Double](repeating: 0, count: 32)
            lanes[index] = 7
            func vector(_ k: Int) -> SIMD8<Double> { SIMD8(lanes[(8 * k)..<(8 * k + 8)]) }
            #expect(mandel_equal_lanes(vector(0), vector(1), vector(2), vector(3), 7) == 1 << UInt32(31 - index))
        }
    }
}
