import Deadline
import Dispatch
import MandelbrotCore
import Platform
import Testing

@Suite("Cancellation")
struct CancellationTests {
    /// A render that takes seconds in a debug build: inside the period-3 bulb, which the
    /// cardioid shortcut does not cover, so every pixel iterates to the limit.
    static let slowJob = RenderJob(
        size: ImageSize(width: 400, height: 400),
        region: .view(Viewport(centerReal: -0.1225, centerImaginary: 0.7449, zoom: 30)),
        iterations: 3_000, colorScheme: .bw, split: .tiles, tileSize: TileSize(width: 32, height: 32), workers: 2)

    /// A private serial queue gets a thread of its own: a cancel sent through
    /// the global queue can starve behind render blocks that fill GCD's pool.
    static let cancelQueue = DispatchQueue(label: "mandel.tests.cancel")

    @Test(
        "a cancelled render stops early: tiles are left unfinished, and none starts after the cancel",
        arguments: allStrategies.map(\.name), WorkSplit.allCases)
    func stopsEarly(strategyName: String, split: WorkSplit) async throws {
        var job = Self.slowJob
        job.split = split
        let flag = CancellationFlag()
        let start = MonotonicClock.nanoseconds()
        let cancelledAt = Locked<Double?>(nil)
        Self.cancelQueue.asyncAfter(deadline: .now() + .milliseconds(30)) {
            cancelledAt.withLock { $0 = MonotonicClock.seconds(since: start) }
            flag.cancel()
        }
        let error = await #expect(throws: RenderCancelled.self) {
            _ = try await render(job, with: strategy(named: strategyName), cancellation: flag)
        }
        let tiles = try #require(error?.report.tiles)
        let cancelTime = try #require(cancelledAt.withLock { $0 })
        #expect(tiles.count == job.plan().tileCount, "a picture rendered whole reports every tile")
        #expect(tiles.contains { !$0.isFinished })
        // Record times count from the render's start, which comes a little after `start`.
        #expect(tiles.filter(\.isFinished).allSatisfy { $0.start < cancelTime }, "a tile started after the cancel")
    }

    @Test("a render cancelled before it starts renders nothing", arguments: allStrategies.map(\.name))
    func cancelledBeforeStart(strategyName: String) async throws {
        let flag = CancellationFlag()
        flag.cancel()
        let error = await #expect(throws: RenderCancelled.self) {
            _ = try await render(Self.slowJob, with: strategy(named: strategyName), cancellation: flag)
        }
        #expect(error?.report.tiles.allSatisfy { !$0.isFinished } == true)
        #expect(error?.report.totalIterations == 0)
    }

    @Test(
        "each mechanism's own cancel, without the shared flag, does what the strategy says it does",
        arguments: allStrategies.map(\.name), [WorkSplit.tiles, .rows])
    func native(strategyName: String, split: WorkSplit) async throws {
        var job = Self.slowJob
        job.split = split
        let strategy = strategy(named: strategyName)
        let flag = CancellationFlag()
        // Cancel once the render is surely under way: from the worker that finishes the tenth tile.
        let finished = Locked(0)
        let render = try PictureRender(job: job, cancellation: flag)
        let error = await #expect(throws: RenderCancelled.self) {
            _ = try await withDeadline(waitingFor: "\(strategyName) stopping after its own cancel") {
                try await render.run(strategy, settings: RunSettings(cancellationMode: .native)) {
                    if finished.withLock({
                        $0 += 1
                        return $0 == 10
                    }) {
                        flag.cancel()
                    }
                }
            }
        }
        let report = try #require(error?.report)
        let unfinished = report.tiles.filter { !$0.isFinished }.count
        switch strategy.nativeCancellation {
        case .stopsWorkers:
            // It stops well short of the end. (Not "within a tile": on a loaded machine the
            // thread that cancels can be descheduled between noting the time and the cancel.)
            #expect(unfinished > 0, "\(strategyName) rendered every tile after its own cancel")
            #expect(report.tilesStartedAfterCancel * 2 < report.tiles.count, "\(strategyName) went on taking tiles")
        case .none, .queuedWorkOnly:
            #expect(report.tilesStartedAfterCancel > 0, "\(strategyName) cannot stop by itself, yet stopped")
        }
    }
}
