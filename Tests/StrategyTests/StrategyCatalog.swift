import ApplyDriver
import DispatchDriver
import MandelbrotCore
import OperationDriver
import PThreadDriver
import TaskGroupDriver
import ThreadDriver

/// Every strategy under test, by name.
let allStrategies: [any RenderStrategy] = [
    SerialStrategy(), ThreadStrategy(), OperationStrategy(), DispatchStrategy(),
    ApplyStrategy(), TaskGroupStrategy(), PThreadStrategy(),
]

/// The strategies that run on threads of their own.
let concurrentStrategyNames = ["thread", "operation", "gcd", "apply", "tasks", "pthread"]

func strategy(named name: String) -> any RenderStrategy {
    allStrategies.first { $0.name == name }!
}

/// Renders `job` with `strategy` and returns the canvas and the report.
func render(_ job: RenderJob, with strategy: any RenderStrategy, cancellation: CancellationFlag = CancellationFlag()) async -> (PixelBuffer, RenderReport) {
    let canvas = PixelBuffer(size: job.size, channels: job.colorScheme.channels)
    let report = await StrategyRunner.run(strategy, work: RenderWork(job: job, canvas: canvas, cancellation: cancellation))
    return (canvas, report)
}
