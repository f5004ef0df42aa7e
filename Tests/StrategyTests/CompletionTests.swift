import Dispatch
import MandelbrotCore
import Testing

@Suite("Completion contract")
struct CompletionTests {
    @Test("the completion runs on the main queue, exactly once per pass", arguments: allStrategies.map(\.name))
    func completesOnMainQueue(strategyName: String) async throws {
        let watch = ContractWatch(strategy(named: strategyName))
        for color in [ColorScheme.smooth, .histogram] {
            let job = RenderJob(
                size: ImageSize(width: 64, height: 48), iterations: 50, colorScheme: color,
                tileSize: TileSize(width: 8, height: 8),
                workers: 2)
            _ = try await render(job, with: watch)
        }
        // Give a second, buggy completion the chance to arrive.
        try await Task.sleep(for: .milliseconds(50))
        #expect(watch.completions == 3, "one pass for smooth, two for histogram")
        #expect(watch.completionsOffMainQueue == 0)
    }
}

@Suite("Lifetime")
struct LifetimeTests {
    @Test(
        "a finished render keeps nothing alive: its work is freed, even with a long-lived cancel flag",
        arguments: allStrategies.map(\.name))
    func workIsReleased(strategyName: String) async throws {
        let flag = CancellationFlag()
        let watch = ContractWatch(strategy(named: strategyName))
        let job = RenderJob(
            size: ImageSize(width: 40, height: 30), iterations: 50, colorScheme: .histogram, split: .tiles,
            tileSize: TileSize(width: 8, height: 8), workers: 2)
        _ = try await render(job, with: watch, cancellation: flag)
        // Threads, operations and tasks let go of their last references as they wind down.
        for _ in 0..<50 where watch.worksAlive > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(watch.worksAlive == 0, "\(strategyName) keeps its RenderWork alive after completing")
    }
}
