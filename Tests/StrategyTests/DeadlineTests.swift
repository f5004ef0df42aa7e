import Deadline
import Dispatch
import MandelbrotCore
import Synchronization
import Testing

/// A strategy that holds its work and its completion until the test releases them: a hung
/// render until then. Released, it renders serially and completes, so that no render is left
/// suspended when the test process ends (LeakSanitizer reports what it holds as leaked).
final class HeldUntilReleased: RenderStrategy, Sendable {
    private let held = Mutex<(@Sendable () -> Void)?>(nil)
    private let finished = Atomic(false)

    var name: String { "held" }
    var summary: String { "holds its completion until released" }
    func concurrentWorkers(for plan: WorkPlan) -> Int { 1 }
    func threadsStarted(for plan: WorkPlan) -> Int { 0 }
    var nativeCancellation: NativeCancellation { .none }
    var asynchronousWait: String? { nil }
    var priorityFacility: String? { nil }
    var dependency: String { "none: nothing completes until released" }

    func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {
        held.withLock {
            $0 = {
                SerialStrategy().start(run) {
                    completion()
                    self.finished.store(true, ordering: .releasing)
                }
            }
        }
    }

    /// Lets the render go on; returns whether it has completed within `seconds`.
    func release(waitingUpTo seconds: Double) async throws -> Bool {
        let work = held.withLock { $0.take() }
        work?()
        let giveUp = ContinuousClock.now + .seconds(seconds)
        while !finished.load(ordering: .acquiring) && ContinuousClock.now < giveUp {
            try await Task.sleep(for: .milliseconds(10))
        }
        return finished.load(ordering: .acquiring)
    }
}

@Suite("Deadlines")
struct DeadlineTests {
    @Test("a render whose completion never comes fails the test at its deadline, saying what it waited for")
    func hungRender() async throws {
        let job = RenderJob(size: ImageSize(width: 16, height: 16), iterations: 50, colorScheme: .bw, workers: 1)
        let started = ContinuousClock.now
        let strategy = HeldUntilReleased()
        let error = await #expect(throws: DeadlinePassed.self) {
            _ = try await withDeadline(seconds: 0.3, waitingFor: "a render that never completes") {
                try await PictureRender.render(job, with: strategy)
            }
        }
        #expect(error?.description == "gave up after 0.3 s waiting for a render that never completes")
        // When the deadline fired, not when this test resumed: under the parallel suite the test
        // may wait seconds for a thread of the cooperative pool after the deadline has done its part.
        let waited = (error?.passedAt ?? started) - started
        #expect(waited >= .milliseconds(300) && waited < .seconds(10), "waited \(waited)")
        // Released, it renders on the main queue, which other tests' serial renders may hold for
        // seconds (over 10 s under ThreadSanitizer in one CI run): a render's deadline, not 10 s.
        #expect(
            try await strategy.release(waitingUpTo: renderDeadlineSeconds), "the released render did not complete")
    }

    @Test("a body that finishes in time gives its value, and one that throws its error")
    func inTime() async throws {
        #expect(try await withDeadline(seconds: 10, waitingFor: "a number") { 42 } == 42)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await withDeadline(seconds: 10, waitingFor: "a refusal") { throw Refused() }
        }
    }
}
