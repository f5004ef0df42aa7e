import MandelOptions
import MandelbrotCore
import RenderModel
import Testing

@testable import mandel

/// The progress meter's text, as a function of what it knows: tiles finished, tiles in all, seconds so far.
@Suite("Progress status")
struct ProgressStatusTests {
    @Test("the time left is the tiles left at the rate so far")
    func timeLeft() {
        // 30 of 100 tiles in 10 s: 3 tiles a second, so the 70 left take 23.3 s.
        #expect(
            ProgressMeter.status(finished: 30, total: 100, elapsed: 10)
                == "30%  30/100 tiles, 10.000 s, 3 tiles/s, about 23.333 s left")
        // 3 of 4 in 1.5 s: 0.5 s for the last one.
        #expect(
            ProgressMeter.status(finished: 3, total: 4, elapsed: 1.5)
                == "75%  3/4 tiles, 1.500 s, 2 tiles/s, about 0.500 s left")
    }

    @Test("no rate and no estimate before the first tile; nothing left at the end")
    func ends() {
        #expect(ProgressMeter.status(finished: 0, total: 12, elapsed: 0.5) == "0%  0/12 tiles, 0.500 s")
        #expect(
            ProgressMeter.status(finished: 12, total: 12, elapsed: 2)
                == "100%  12/12 tiles, 2.000 s, 6 tiles/s, about 0.00 ms left")
    }

    @Test("the rate takes an SI prefix past a thousand a second")
    func fastRate() {
        #expect(
            ProgressMeter.status(finished: 5000, total: 20000, elapsed: 2)
                == "25%  5000/20000 tiles, 2.000 s, 2.50 k tiles/s, about 6.000 s left")
    }

    /// A deep view: no tile finishes during the serial orbit, so the meter shows its steps, and
    /// then times the tiles from the pixels' start.
    @Test("a deep view: the orbit's steps with a bound on its time, then the tiles' rate since the pixels began")
    func deepView() {
        // 100,000 of at most 600,000 steps in 0.5 s: the other 500,000 take 2.5 s at most.
        #expect(
            ProgressMeter.status(
                finished: 0, total: 6, elapsed: 0.5,
                serial: SerialProgress.Snapshot(phase: .orbit, orbitSteps: 100_000, stepLimit: 600_000))
                == "orbit 16%  100000/600000 steps (serial), 0.500 s, at most 2.500 s left")
        // 3 tiles in the 0.2 s since the pixels began (2.1 s since the start): 15 a second, 0.2 s left,
        // where the whole time would have said 1.4 tiles/s and 2.1 s left.
        #expect(
            ProgressMeter.status(
                finished: 3, total: 6, elapsed: 2.1,
                serial: SerialProgress.Snapshot(
                    phase: .pixels, orbitSteps: 538_502, stepLimit: 600_100, pixelSeconds: 0.2))
                == "50%  3/6 tiles, 2.100 s (pixels 0.200 s), 15 tiles/s, about 0.200 s left")
    }

    @Test("the percentage is rounded down: 99.9% is not done")
    func roundedDown() {
        #expect(ProgressMeter.status(finished: 999, total: 1000, elapsed: 1).hasPrefix("99%  999/1000 tiles"))
    }
}
