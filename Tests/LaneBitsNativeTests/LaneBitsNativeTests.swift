import LaneBits
import LaneFixtures
import Testing

/// `mandel_equal_lanes` and `mandel_equal_lanes_4` compiled for this machine's vector units
/// (`-march=native`): on an AVX-512 machine both instruction paths, the 512-bit one and the
/// 256-bit one, which the core uses only where it has four-lane vectors, so that neither goes
/// untested on the machine the tests run on. MandelbrotCoreTests checks the portable loops.
@Suite("Vector lanes read as bits, with this machine's instructions")
struct LaneBitsNativeTests {
    @Test(
        "lane i of vector k is bit 31 − (width·k + i), set exactly where the lane equals the value", arguments: [8, 4])
    func everyLaneItsOwnBit(width: Int) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let (lanes, expected) = randomLanes(width: width, value: 51, using: &generator)
            let bits: UInt32
            if width == 8 {
                func vector(_ k: Int) -> SIMD8<Double> { SIMD8(lanes[(8 * k)..<(8 * k + 8)]) }
                bits = mandel_equal_lanes(vector(0), vector(1), vector(2), vector(3), 51)
            } else {
                func vector(_ k: Int) -> SIMD4<Double> { SIMD4(lanes[(4 * k)..<(4 * k + 4)]) }
                bits = mandel_equal_lanes_4(vector(0), vector(1), vector(2), vector(3), 51)
            }
            #expect(bits == expected, "\(lanes)")
        }
    }

    @Test("any lane of four vectors of four is 0 exactly where one is (the free loop's test)")
    func anyZero() {
        var generator = SystemRandomNumberGenerator()
        #expect(checkAnyZero(mandel_any_zero_4, using: &generator) == [])
    }
}
