import MandelbrotCore
import Testing

@Suite("Every count in every lane")
struct KernelLaneTests {
    /// The largest count placed in every lane.
    static let highest = 1200

    /// For each n in 1…highest, a point on the real axis just right of the cusp at 0.25 whose
    /// escape count is exactly n. The count falls as the point moves right (about π/√ε at
    /// 0.25 + ε), so bisection finds each one; that no count is skipped is checked below.
    static let pointsByCount: [Double] = {
        var points = [Double](repeating: .nan, count: highest + 1)
        for n in 1...highest {
            // count(0.25 + low) ≥ n > count(0.25 + high)... bisect for the smallest offset with count ≤ n.
            var low = 1e-12
            var high = 4.0
            for _ in 0..<80 {
                let middle = (low + high) / 2
                if EscapeTime.count(real: 0.25 + middle, imaginary: 0, limit: highest + 1) > n {
                    low = middle
                } else {
                    high = middle
                }
            }
            points[n] = 0.25 + high
        }
        return points
    }()

    @Test("the points found have exactly the counts they stand for")
    func points() {
        for n in 1...Self.highest {
            #expect(
                EscapeTime.count(real: Self.pointsByCount[n], imaginary: 0, limit: Self.highest + 1) == n, "count \(n)")
        }
    }

    @Test(
        "the vector kernel gives every count from 1 to the limit exactly, in all 32 lanes, in rows of every length"
    )
    func everyCountEveryLane() {
        let limit = Self.highest + 1
        var wrong: [String] = []
        for lane in 0..<32 {
            // Rows end in every lane position too: full groups, a ragged tail, and a second group.
            for length in [lane + 1, 32, 33 + lane].filter({ $0 > lane }) {
                for n in 1...Self.highest {
                    var row = [Double](repeating: 3, count: length)  // escapes at step 1
                    row[lane] = Self.pointsByCount[n]
                    let (counts, smooth) = countRow(.simd, realParts: row, imaginary: 0, limit: limit)
                    if counts[lane] != UInt32(n) { wrong.append("lane \(lane) of \(length): \(counts[lane]) for \(n)") }
                    if counts.enumerated().contains(where: { $0.offset != lane && $0.element != 1 }) {
                        wrong.append("lane \(lane) of \(length), count \(n): a neighbour changed")
                    }
                    if n % 97 == 0 {
                        let reference = countRow(.scalar, realParts: row, imaginary: 0, limit: limit)
                        if reference.1 != smooth {
                            wrong.append("smooth values differ in lane \(lane) of \(length) at \(n)")
                        }
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }

    @Test("the useful-iteration total counts each pixel once, capped at the limit, whatever its lane")
    func totals() {
        for lane in [0, 7, 8, 31] {
            for (n, cap) in [(250, 300), (250, 250), (1037, 1000)] {
                var row = [Double](repeating: 3, count: 40)
                row[lane] = Self.pointsByCount[n]
                var counts = [UInt32](repeating: 0, count: row.count)
                let total = row.withUnsafeBufferPointer {
                    IterationKernel.simd.countRow(
                        realParts: $0.baseAddress!, imaginary: 0, count: row.count, limit: Self.highest + 1,
                        counts: &counts,
                        smooth: nil, usefulLimit: cap)
                }
                #expect(total == UInt64(min(n, cap) + 39), "lane \(lane), count \(n), cap \(cap)")
            }
        }
    }
}

@Suite("Every lane's bit")
struct BilevelLaneTests {
    @Test(
        "a pixel is marked exactly when its count reaches the limit, one step short is not, in every lane and bit",
        arguments: IterationKernel.allCases)
    func everyLaneEveryOffset(kernel: IterationKernel) {
        let limit = 500
        // One step short of the limit, exactly at it (the count stops there), and far outside.
        let cases: [(real: Double, inSet: Bool)] = [
            (KernelLaneTests.pointsByCount[limit - 1], false), (KernelLaneTests.pointsByCount[limit + 100], true),
            (3, false),
        ]
        var wrong: [String] = []
        for lane in 0..<32 {
            for column in [0, 3, 8] {
                for length in [lane + 1, 32, 40] where length > lane {
                    for (real, inSet) in cases {
                        var row = [Double](repeating: 3, count: length)
                        row[lane] = real
                        // Every bit starts set, so a bit the kernel should clear, or must leave alone, shows.
                        var pixels = [UInt8](repeating: 0xFF, count: (column + length + 7) / 8 + 1)
                        var scratch = [UInt32](repeating: 0, count: length)
                        _ = row.withUnsafeBufferPointer { realParts in
                            kernel.markRow(
                                realParts: realParts.baseAddress!, imaginary: 0, count: length, limit: limit,
                                into: &pixels, column: column, scratch: &scratch)
                        }
                        func bit(_ x: Int) -> Bool { pixels[x / 8] & (0x80 >> UInt8(x % 8)) != 0 }
                        for x in 0..<(pixels.count * 8) {
                            let expected = x == column + lane ? inSet : !(column..<(column + length)).contains(x)
                            if bit(x) != expected {
                                wrong.append(
                                    "lane \(lane), column \(column), length \(length), in set \(inSet): bit \(x)")
                            }
                        }
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }
}
