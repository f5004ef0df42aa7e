import Deadline
import Dispatch
import MandelbrotCore
import Testing

/// A strategy that takes its work and never calls its completion: a hung render.
struct NeverCompletes: RenderStrategy {
    var name: String { "never" }
    var summary: String { "never calls its completion" }
    func concurrentWorkers(for plan: WorkPlan) -> Int { 1 }
    func threadsStarted(for plan: WorkPlan) -> Int { 0 }
    var nativeCancellation: NativeCancellation { .none }
    var asynchronousWait: String? { nil }
    var priorityFacility: String? { nil }
    var dependency: String { "none: nothing ever completes" }
    func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {}
}

@Suite("Deadlines")
struct DeadlineTests {
    @Test("a render whose completion never comes fails the test at its deadline, saying what it waited for")
    func hungRender() async throws {
        let job = RenderJob(size: ImageSize(width: 16, height: 16), iterations: 50, colorScheme: .bw, workers: 1)
        let started = ContinuousClock.now
        let error = await #expect(throws: DeadlinePassed.self) {
            _ = try await withDeadline(seconds: 0.3, waitingFor: "a render that never completes") {
                try await PictureRender.render(job, with: NeverCompletes())
            }
        }
        #expect(error?.description == "gave up after 0.3 s waiting for a render that never completes")
        // When the deadline fired, not when this test resumed: under the parallel suite the test
        // may wait seconds for a thread of the cooperative pool after the deadline has done its part.
        let waited = (error?.passedAt ?? started) - started
        #expect(waited >= .milliseconds(300) && waited < .seconds(10), "waited \(waited)")
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
