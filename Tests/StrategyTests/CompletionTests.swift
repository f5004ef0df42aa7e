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
