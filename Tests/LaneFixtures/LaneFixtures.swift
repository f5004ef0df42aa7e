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

/// Checks `mandel_any_zero_4` on random vectors of failure counts, none or a few of them 0 (in
/// any lane of any vector), as the target that calls it compiles it: whether any lane is 0.
public func checkAnyZero(
    _ anyZero: (SIMD4<Int64>, SIMD4<Int64>, SIMD4<Int64>, SIMD4<Int64>) -> Int32,
    using generator: inout some RandomNumberGenerator
) -> [String] {
    var failures: [String] = []
    for _ in 0..<2_000 {
        var lanes = (0..<16).map { _ in Int64.random(in: 1...60, using: &generator) }
        for _ in 0..<Int.random(in: 0...2, using: &generator) { lanes[Int.random(in: 0..<16, using: &generator)] = 0 }
        func vector(_ k: Int) -> SIMD4<Int64> { SIMD4(lanes[(4 * k)..<(4 * k + 4)]) }
        let found = anyZero(vector(0), vector(1), vector(2), vector(3)) != 0
        if found != lanes.contains(0) { failures.append("\(lanes)") }
    }
    return failures
}
