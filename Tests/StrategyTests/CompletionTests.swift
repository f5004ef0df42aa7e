import Dispatch
import MandelbrotCore
import Synchronization
import Testing

@Suite("Completion contract")
struct CompletionTests {
    /// A tag on the main queue: only code running on the main queue can read it.
    static let mainQueueKey = DispatchSpecificKey<Int>()

    @Test("the completion runs on the main queue, exactly once", arguments: allStrategies.map(\.name))
    func completesOnMainQueue(strategyName: String) async {
        DispatchQueue.main.setSpecific(key: Self.mainQueueKey, value: 42)
        let job = RenderJob(size: ImageSize(width: 64, height: 48), iterations: 50, tileSize: TileSize(width: 8, height: 8), workers: 2)
        let calls = Mutex(0)
        let tagSeen: Int? = await withCheckedContinuation { continuation in
            let work = RenderWork(job: job, canvas: PixelBuffer(size: job.size, channels: 3))
            strategy(named: strategyName).start(work) {
                calls.withLock { $0 += 1 }
                continuation.resume(returning: DispatchQueue.getSpecific(key: Self.mainQueueKey))
            }
        }
        // Give a second, buggy completion the chance to arrive.
        try? await Task.sleep(for: .milliseconds(50))
        #expect(tagSeen == 42)
        #expect(calls.withLock { $0 } == 1)
    }
}

@Suite("Lifetime")
struct LifetimeTests {
    /// Holds a weak reference, so the test can ask whether anything still keeps the work alive.
    final class WeakWork: @unchecked Sendable {
        // @unchecked: written once before the render, read after it, on one task.
        weak var work: RenderWork?
    }

    @Test("a finished render keeps nothing alive: its work is freed, even with a long-lived cancel flag",
          arguments: allStrategies.map(\.name))
    func workIsReleased(strategyName: String) async throws {
        let flag = CancellationFlag()
        let weak = WeakWork()
        do {
            let job = RenderJob(size: ImageSize(width: 40, height: 30), iterations: 50, split: .tiles,
                                tileSize: TileSize(width: 8, height: 8), workers: 2)
            let work = RenderWork(job: job, canvas: PixelBuffer(size: job.size, channels: 3), cancellation: flag)
            weak.work = work
            _ = await StrategyRunner.run(strategy(named: strategyName), work: work)
        }
        // Threads, operations and tasks let go of their last references as they wind down.
        for _ in 0..<50 where weak.work != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(weak.work == nil, "\(strategyName) keeps its RenderWork alive after completing")
    }
}
