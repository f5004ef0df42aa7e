import Dispatch
import Foundation
import Glibc

/// A progress bar on standard error, fed by workers through a dispatch source.
///
/// Workers call ``tileFinished()`` from any thread: one atomic add into a
/// user-data-add source. The source's handler runs on the main queue and
/// sees the sum of every add since it last ran, so it runs only as often as
/// the main queue can take it, however fast tiles finish (the seeds' cheap
/// progress from many threads). The bar appears only once a render has taken
/// half a second, is redrawn at most 20 times a second, and is erased at the end.
final class ProgressMeter: @unchecked Sendable {
    // @unchecked: the source is thread-safe (add(data:) is an atomic add); the
    // drawing state below is touched only by the handler, on the main queue.
    private let source: any DispatchSourceUserDataAdd
    private let totalTiles: Int
    private let draws: Bool
    private let start = DispatchTime.now()
    private var finishedTiles = 0
    private var lastDraw: DispatchTime?
    private var isShown = false

    /// Starts a meter for `totalTiles`; it draws only if `draws` is true.
    init(totalTiles: Int, draws: Bool) {
        self.totalTiles = max(totalTiles, 1)
        self.draws = draws
        source = DispatchSource.makeUserDataAddSource(queue: .main)
        // The handler holds self; finish() cancels the source, which releases it.
        source.setEventHandler { self.advance(by: Int(self.source.data)) }
        source.resume()
        // Draw once at the half-second mark even if no tile has finished yet (a bands
        // split has one tile per worker), so a long render always shows it is alive.
        DispatchQueue.main.asyncAfter(deadline: start + .milliseconds(501)) { [weak self] in self?.advance(by: 0) }
    }

    /// Called on a worker's thread after each finished tile.
    func tileFinished() { source.add(data: 1) }

    /// Whether standard error is a terminal.
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// Stops the meter and erases the bar; call on the main queue.
    func finish() {
        dispatchPrecondition(condition: .onQueue(.main))
        source.cancel()
        if isShown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        isShown = false
    }

    private func advance(by tiles: Int) {
        finishedTiles += tiles
        guard draws, !source.isCancelled else { return }
        let now = DispatchTime.now()
        guard now.uptimeNanoseconds - start.uptimeNanoseconds > 500_000_000 else { return }
        if let lastDraw, now.uptimeNanoseconds - lastDraw.uptimeNanoseconds < 50_000_000 { return }
        lastDraw = now
        isShown = true
        let fraction = Double(finishedTiles) / Double(totalTiles)
        let filled = Int(fraction * 30)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
        FileHandle.standardError.write(Data(String(format: "\r[%@] %3.0f%%  %d/%d tiles", bar, fraction * 100, finishedTiles, totalTiles).utf8))
    }
}
