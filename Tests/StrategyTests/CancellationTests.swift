import Dispatch
import MandelbrotCore
import Testing

@Suite("Cancellation")
struct CancellationTests {
    /// A render that takes seconds in a debug build: inside the period-3 bulb, which the
    /// cardioid shortcut does not cover, so every pixel iterates to the limit.
    static let slowJob = RenderJob(
        size: ImageSize(width: 400, height: 400), region: .view(Viewport(centerReal: -0.1225, centerImaginary: 0.7449, zoom: 30)),
        iterations: 3_000, colorScheme: .bw, split: .tiles, tileSize: TileSize(width: 32, height: 32), workers: 2)

    /// A private serial queue gets a thread of its own: a cancel sent through
    /// the global queue can starve behind render blocks that fill GCD's pool.
    static let cancelQueue = DispatchQueue(label: "mandel.tests.cancel")

    @Test("a cancelled render stops early and says so", arguments: allStrategies.map(\.name), WorkSplit.allCases)
    func stopsEarly(strategyName: String, split: WorkSplit) async {
        var job = Self.slowJob
        job.split = split
        let flag = CancellationFlag()
        Self.cancelQueue.asyncAfter(deadline: .now() + .milliseconds(30)) { flag.cancel() }
        let (_, report) = await render(job, with: strategy(named: strategyName), cancellation: flag)
        #expect(report.wasCancelled)
        #expect(report.tiles.contains { !$0.isFinished })
    }

    @Test("a render cancelled before it starts renders nothing", arguments: allStrategies.map(\.name))
    func cancelledBeforeStart(strategyName: String) async {
        let flag = CancellationFlag()
        flag.cancel()
        let (_, report) = await render(Self.slowJob, with: strategy(named: strategyName), cancellation: flag)
        #expect(report.wasCancelled)
        #expect(report.tiles.allSatisfy { !$0.isFinished })
    }
}
