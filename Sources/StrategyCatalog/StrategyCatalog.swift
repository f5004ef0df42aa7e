import ApplyDriver
import DispatchDriver
public import MandelbrotCore
import OperationDriver
import PThreadDriver
import ProcessDriver
import TaskGroupDriver
import ThreadDriver

/// Every strategy mandel knows, in the order it lists and measures them: the one list
/// that the command line, the tests and the benchmarks read.
///
/// Adding a strategy is its driver module, its target in `Package.swift`, and one line here.
public enum StrategyCatalog {
    /// Every strategy, the baseline first.
    public static let all: [any RenderStrategy] = [
        SerialStrategy(),
        ThreadStrategy(),
        OperationStrategy(),
        DispatchStrategy(),
        ApplyStrategy(),
        TaskGroupStrategy(),
        PThreadStrategy(),
        ProcessStrategy(),
    ]

    /// The strategy every other is measured against: all the work on the calling thread.
    public static var baseline: any RenderStrategy { all[0] }

    /// The strategy `mandel render` uses unless told otherwise: GCD, the book's third way.
    public static var recommended: any RenderStrategy { strategy(named: "gcd")! }

    /// Every strategy but the baseline: those that run on threads of their own.
    public static var concurrent: [any RenderStrategy] { Array(all.dropFirst()) }

    /// The names, in order.
    public static var names: [String] { all.map(\.name) }

    /// How `strategy` behaves beyond its speed, in words, in the order `mandel strategies --details`
    /// lists them: how it cancels, waits without a thread, orders work by priority, makes one
    /// render wait for another and recovers from a crashed worker. The one source of these
    /// words, for the command line and the explorer's page alike.
    public static func details(of strategy: any RenderStrategy) -> [(what: String, how: String)] {
        [
            ("cancel", strategy.nativeCancellation.description),
            ("waits", strategy.asynchronousWait ?? "blocks its thread"),
            ("priority", strategy.priorityFacility ?? "none: tiles come centre first from the shared counter"),
            ("dependency", strategy.dependency),
            ("recovers", strategy.recovery),
        ]
    }

    /// The strategy called `name`, if there is one.
    public static func strategy(named name: String) -> (any RenderStrategy)? {
        all.first { $0.name == name }
    }
}
