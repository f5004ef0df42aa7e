import Comparison
import Dispatch
import Platform

/// Progress on standard error, fed by workers through a dispatch source.
///
/// Workers call ``tileFinished()`` from any thread: one atomic add into a
/// user-data-add source. The source's handler runs on the main queue and
/// sees the sum of every add since it last ran, so it runs only as often as
/// the main queue can take it, however fast tiles finish (the talk's cheap
/// progress from many threads). On a terminal the meter is a bar, drawn once
/// the render has taken half a second, redrawn at most 20 times a second and
/// erased at the end; elsewhere it is a plain line at half a second and then
/// every five seconds. Both
/// show the elapsed time, the rate and an estimate of the time left.
final class ProgressMeter: @unchecked Sendable {
    // @unchecked: the source is thread-safe (add(data:) is an atomic add); the
    // drawing state below is touched only by the handler, on the main queue.

    /// How the meter shows itself.
    enum Display {
        /// Counts, but never draws (to measure what the source costs).
        case none
        /// A bar redrawn in place, for a terminal.
        case bar
        /// A line every few seconds, for a log.
        case lines
    }

    private let source: any DispatchSourceUserDataAdd
    private let totalTiles: Int
    private let display: Display
    private let start = MonotonicClock.nanoseconds()
    private var finishedTiles = 0
    private var lastDraw: UInt64 = 0
    private var isDrawn = false

    /// Whether the meter draws at all; one that does not needs no tiles.
    var draws: Bool { display != .none }

    /// When the meter first shows itself: a render shorter than this needs no progress.
    static let firstDraw = 0.5
    static let barInterval = 0.05
    static let lineInterval = 5.0

    /// Says, before a render that will hold the main queue (the `serial` strategy), that the
    /// meter cannot move until it ends: the meter is drawn by the main queue, as a user
    /// interface is, and a blocked main queue draws nothing.
    func announceBlockedMainQueue(strategy: String) {
        guard display != .none else { return }
        ProcessStart.writeError(
            "progress: \(strategy) renders on the main queue, which also draws this meter; it shows nothing until "
                + "the render ends (0/\(totalTiles) tiles now)")
    }

    /// Starts a meter for `totalTiles`.
    init(totalTiles: Int, display: Display) {
        self.totalTiles = max(totalTiles, 1)
        self.display = display
        source = DispatchSource.makeUserDataAddSource(queue: .main)
        // The handler holds self; finish() cancels the source, which releases it.
        source.setEventHandler { self.advance(by: Int(self.source.data)) }
        source.resume()
        guard display != .none else { return }
        // Draw at the first mark even if no tile has finished yet (a bands split has one tile
        // per worker), so a long render always shows it is alive; then keep a line log going.
        scheduleCheck(after: Self.firstDraw + 0.001)
    }

    /// The display for a render: `--progress`/`--no-progress`, or a bar when standard error is a terminal.
    static func display(forced: Bool?) -> Display {
        switch forced {
        case false?: .none
        case true?: Terminal.standardErrorIsTerminal ? .bar : .lines
        case nil: Terminal.standardErrorIsTerminal ? .bar : .none
        }
    }

    /// Called on a worker's thread after each finished tile.
    func tileFinished() { source.add(data: 1) }

    /// Stops the meter and erases the bar; call on the main queue.
    func finish() {
        dispatchPrecondition(condition: .onQueue(.main))
        source.cancel()
        if isDrawn && display == .bar { ProcessStart.writeRaw("\r\u{1B}[K") }
        isDrawn = false
    }

    private func scheduleCheck(after seconds: Double) {
        DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { [weak self] in
            guard let self, !self.source.isCancelled else { return }
            self.advance(by: 0)
            if self.display == .lines { self.scheduleCheck(after: Self.lineInterval) }
        }
    }

    private func advance(by tiles: Int) {
        finishedTiles += tiles
        guard display != .none, !source.isCancelled else { return }
        let now = MonotonicClock.nanoseconds()
        let elapsed = Double(now - start) / 1e9
        guard elapsed >= Self.firstDraw else { return }
        let interval = display == .bar ? Self.barInterval : Self.lineInterval
        guard lastDraw == 0 || Double(now - lastDraw) / 1e9 >= interval * 0.99 else { return }
        lastDraw = now
        isDrawn = true
        let fraction = Double(finishedTiles) / Double(totalTiles)
        var status =
            "\(Int((fraction * 100).rounded(.down)))%  \(finishedTiles)/\(totalTiles) tiles, \(NumberFormat.seconds(elapsed))"
        if finishedTiles > 0 {
            let rate = Double(finishedTiles) / elapsed
            let left = Double(totalTiles - finishedTiles) / rate
            status += ", \(NumberFormat.rate(rate)) tiles/s, about \(NumberFormat.seconds(left)) left"
        }
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
