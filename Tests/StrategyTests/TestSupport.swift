import Deadline
import Dispatch
import MandelbrotCore
import Platform
import StrategyCatalog

/// Every strategy under test: the catalog's.
let allStrategies = StrategyCatalog.all

/// The strategies that run on threads of their own.
let concurrentStrategyNames = StrategyCatalog.concurrent.map(\.name)

func strategy(named name: String) -> any RenderStrategy {
    StrategyCatalog.strategy(named: name)!
}

/// Renders `job` whole with `strategy` and returns the picture and the report.
func render(
    _ job: RenderJob, with strategy: any RenderStrategy, cancellation: CancellationFlag = CancellationFlag()
) async throws -> (PixelBuffer, RenderReport) {
    try await withDeadline(waitingFor: "\(strategy.name) rendering \(job.size.width)x\(job.size.height)") {
        try await PictureRender.render(job, with: strategy, cancellation: cancellation)
    }
}

/// A strategy that runs another and watches how it keeps the contract: where its
/// completion runs, how often, and what becomes of the work it was given.
final class ContractWatch: RenderStrategy, @unchecked Sendable {
    // @unchecked: the counters are behind a lock; `inner` is immutable.
    let inner: any RenderStrategy
    private let state = Locked(State())
    /// A tag only code running on the main queue can read.
    static let mainQueueKey = DispatchSpecificKey<Int>()

    struct State {
        var completions = 0
        var completionsOffMainQueue = 0
        var works: [WeakWork] = []
    }

    struct WeakWork {
        weak var work: RenderWork?
    }

    init(_ inner: any RenderStrategy) {
        self.inner = inner
        DispatchQueue.main.setSpecific(key: Self.mainQueueKey, value: 42)
    }

    var name: String { inner.name }
    var summary: String { inner.summary }
    func concurrentWorkers(for plan: WorkPlan) -> Int { inner.concurrentWorkers(for: plan) }
    func threadsStarted(for plan: WorkPlan) -> Int { inner.threadsStarted(for: plan) }
    var nativeCancellation: NativeCancellation { inner.nativeCancellation }

    var dependency: String { inner.dependency }
    var asynchronousWait: String? { inner.asynchronousWait }
    var priorityFacility: String? { inner.priorityFacility }

    func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {
        state.withLock { $0.works += run.works.map { WeakWork(work: $0) } }
        let calls = Locked(0)
        inner.start(run) {
            let first = calls.withLock { calls in
                calls += 1
                return calls == 1
            }
            self.state.withLock { state in
                state.completions += 1
                if DispatchQueue.getSpecific(key: Self.mainQueueKey) != 42 { state.completionsOffMainQueue += 1 }
            }
            // A second completion of one start is counted, not passed on (the runner would trap).
            if first { completion() }
        }
    }

    var completions: Int { state.withLock { $0.completions } }
    var completionsOffMainQueue: Int { state.withLock { $0.completionsOffMainQueue } }
    /// Works handed to the strategy that something still keeps alive.
    var worksAlive: Int { state.withLock { $0.works.filter { $0.work != nil }.count } }
}
