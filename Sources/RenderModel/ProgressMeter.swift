import Comparison
import Dispatch
import MandelOptions
package import MandelbrotCore
import Platform
import Synchronization

/// Progress on standard error: workers count finished tiles, the main queue reads the count when it draws.
///
/// Workers call ``tileFinished()`` from any thread: one relaxed atomic add to a
/// counter, and nothing else. The main queue reads the counter on its own
/// schedule. (The talk's way, a user-data-add dispatch source on the main
/// queue, coalesces adds only while the main queue is busy: on Linux each add
/// that finds it idle wakes the main thread, which cost 10–25% of a fast render
/// and up to 11,000 futex calls a second here.) On a terminal the meter is a
/// bar, drawn once the render has taken half a second, redrawn 20 times a
/// second and erased at the end; elsewhere it is a plain line at half a second
/// and then every five seconds. Both show the elapsed time, the rate and an
/// estimate of the time left. A deep view's serial part comes first and
/// finishes no tile: the meter shows the reference orbit's steps then, and
/// times the tiles from the pixels' start (see ``SerialProgress``).
package final class ProgressMeter: @unchecked Sendable {
    // @unchecked: the counter is atomic; the drawing state below is touched
    // only on the main queue (the timer's handler, finish()).

    /// How the meter shows itself.
    package enum Display {
        /// Counts, but never draws (to measure what counting costs).
        case none
        /// A bar redrawn in place, for a terminal.
        case bar
        /// A line every few seconds, for a log.
        case lines
    }

    private let finished = Atomic<Int>(0)
    /// The main queue's drawing schedule; none for a meter that does not draw.
    private let timer: (any DispatchSourceTimer)?
    private var isFinished = false
    private let totalTiles: Int
    private let display: Display
    private let serial: SerialProgress?
    private let start = MonotonicClock.nanoseconds()
    private var isDrawn = false

    /// Whether the meter draws at all; one that does not needs no tiles.
    package var draws: Bool { display != .none }

    /// When the meter first shows itself: a render shorter than this needs no progress.
    package static let firstDraw = 0.5
    package static let barInterval = 0.05
    package static let lineInterval = 5.0

    /// Says, before a render that will hold the main queue (the `serial` strategy), that the
    /// meter cannot move until it ends: the meter is drawn by the main queue, as a user
    /// interface is, and a blocked main queue draws nothing.
    package func announceBlockedMainQueue(strategy: String) {
        guard display != .none else { return }
        ProcessStart.writeError(
            "progress: \(strategy) renders on the main queue, which also draws this meter; it shows nothing until "
                + "the render ends (0/\(totalTiles) tiles now)")
    }

    /// Starts a meter for `totalTiles`, after the serial part that `serial` follows (a deep view's).
    package init(totalTiles: Int, display: Display, serial: SerialProgress? = nil) {
        self.totalTiles = max(totalTiles, 1)
        self.display = display
        self.serial = serial
        guard display != .none else {
            timer = nil
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        self.timer = timer
        // Draw at the first mark even if no tile has finished yet (a bands split has one tile
        // per worker), so a long render always shows it is alive; then at the display's interval.
        // The handler holds self; finish() cancels the timer, which releases it.
        let interval = display == .bar ? Self.barInterval : Self.lineInterval
        timer.schedule(deadline: .now() + Self.firstDraw + 0.001, repeating: interval, leeway: .milliseconds(10))
        timer.setEventHandler { self.draw() }
        timer.resume()
    }

    /// The display for a render: `--progress`/`--no-progress`, or a bar when standard error is a terminal.
    package static func display(forced: Bool?) -> Display {
        switch forced {
        case false?: .none
        case true?: Terminal.standardErrorIsTerminal ? .bar : .lines
        case nil: Terminal.standardErrorIsTerminal ? .bar : .none
        }
    }

    /// Called on a worker's thread after each finished tile.
    package func tileFinished() { finished.add(1, ordering: .relaxed) }

    /// Tiles finished so far.
    package var finishedTiles: Int { finished.load(ordering: .relaxed) }

    /// Stops the meter and erases the bar; call on the main queue.
    package func finish() {
        dispatchPrecondition(condition: .onQueue(.main))
        isFinished = true
        timer?.cancel()
        if isDrawn && display == .bar { ProcessStart.writeRaw("\r\u{1B}[K") }
        isDrawn = false
    }

    /// The meter's text after `finished` of `total` tiles in `elapsed` seconds: the percentage,
    /// the counts, the time so far and, once a tile has finished, the rate and the time the
    /// tiles left will take at that rate. For a deep view (`serial`): while the reference orbit
    /// is computed, its steps of the iteration limit and a bound on its time left (it may escape
    /// sooner); then the tiles' rate since the pixels began, for the orbit's seconds are no tile's.
    package static func status(
        finished: Int, total: Int, elapsed: Double, serial: SerialProgress.Snapshot? = nil
    ) -> String {
        let time = NumberFormat.seconds(elapsed)
        if let serial, serial.phase == .orbit {
            let limit = max(serial.stepLimit, 1)
            var status =
                "orbit \(percent(serial.orbitSteps, of: limit))  \(serial.orbitSteps)/\(limit) steps (serial), \(time)"
            if serial.orbitSteps > 0 && elapsed > 0 {
                // The orbit stops at the limit or sooner, where the reference escapes: a bound.
                let left = Double(limit - serial.orbitSteps) / (Double(serial.orbitSteps) / elapsed)
                status += ", at most \(NumberFormat.seconds(left)) left"
            }
            return status
        }
        var status = "\(percent(finished, of: total))  \(finished)/\(total) tiles, \(time)"
        let pixelSeconds = serial?.pixelSeconds
        if let pixelSeconds { status += " (pixels \(NumberFormat.seconds(pixelSeconds)))" }
        if finished > 0 {
            let rate = Double(finished) / (pixelSeconds ?? elapsed)
            let left = Double(total - finished) / rate
            status += ", \(NumberFormat.rate(rate)) tiles/s, about \(NumberFormat.seconds(left)) left"
        }
        return status
    }

    /// `part` of `whole` as a whole percentage, rounded down: 99.9% is not done.
    private static func percent(_ part: Int, of whole: Int) -> String {
        "\(Int((Double(part) / Double(whole) * 100).rounded(.down)))%"
    }

    private func draw() {
        guard display != .none, !isFinished else { return }
        let finishedTiles = self.finishedTiles
        let now = MonotonicClock.nanoseconds()
        let elapsed = Double(now - start) / 1e9
        isDrawn = true
        let serial = self.serial?.snapshot()
        // During the orbit the bar is the orbit's; the text says which.
        let fraction =
            if let serial, serial.phase == .orbit {
                Double(serial.orbitSteps) / Double(max(serial.stepLimit, 1))
            } else {
                Double(finishedTiles) / Double(totalTiles)
            }
        let status = Self.status(finished: finishedTiles, total: totalTiles, elapsed: elapsed, serial: serial)
        switch display {
        case .bar:
            let filled = min(30, Int(fraction * 30))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
            ProcessStart.writeRaw("\r\u{1B}[K[\(bar)] \(status)")
        case .lines:
            ProcessStart.writeError("progress: \(status)")
        case .none:
            break
        }
    }
}
