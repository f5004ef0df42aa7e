import MandelbrotCore
import Testing

@Suite("EscapeTime")
struct EscapeTimeTests {
    @Test(
        "known points escape at the step the definition gives",
        arguments: [
            (1.0, 0.0, 3),  // 0, 1, 2, 5: |z|² = 25 > 4 at step 3
            (2.0, 0.0, 2),  // 0, 2, 6: |z|² = 4 is not > 4, 36 is
            (10.0, 0.0, 1),  // escapes as soon as z = c
            (-2.0, 0.0, 100),  // 0, −2, 2, 2, …: |z|² = 4 forever, never > 4
            (0.0, 0.0, 100),
            (-1.0, 0.0, 100),  // period 2
            (0.0, 1.0, 100),  // 0, i, −1+i, −i, −1+i, …
            (0.25, 0.0, 100),  // the cusp: converges to 1/2
            (0.0, 2.0, 2),  // 0, 2i, −4+2i
        ])
    func knownPoint(real: Double, imaginary: Double, expected: Int) {
        #expect(EscapeTime.count(real: real, imaginary: imaginary, limit: 100) == expected)
    }

    @Test("the count never exceeds the limit")
    func limitCaps() {
        #expect(EscapeTime.count(real: 1, imaginary: 0, limit: 1) == 1)
        #expect(EscapeTime.count(real: 1, imaginary: 0, limit: 3) == 3)
        #expect(EscapeTime.count(real: 1, imaginary: 0, limit: 4) == 3)
    }

    @Test("a point just outside the cusp escapes, slowly")
    func slowEscape() {
        let count = EscapeTime.count(real: 0.26, imaginary: 0, limit: 10_000)
        #expect(count > 20 && count < 10_000)
    }
}
