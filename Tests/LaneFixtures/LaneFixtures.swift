/// Four vectors' lanes for the lane-bit tests, each equal to `value` or a near miss (a count one
/// step below or above it, 0, or its negation), with the word `mandel_equal_lanes` should give:
/// lane i of vector k is bit 31 − (width·k + i).
public func randomLanes(
    width: Int, value: Double, using generator: inout some RandomNumberGenerator
) -> (lanes: [Double], expected: UInt32) {
    var lanes = [Double](repeating: 0, count: 4 * width)
    var expected: UInt32 = 0
    for index in lanes.indices {
        let equal = Bool.random(using: &generator)
        lanes[index] = equal ? value : [value - 1, value + 1, 0, -value].randomElement(using: &generator)!
        if equal { expected |= 1 << UInt32(31 - index) }
    }
    return (lanes, expected)
}
