import ArgumentParser
import MandelbrotCore

/// `mandel strategies`: one line per strategy on how it works.
struct StrategiesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strategies",
        abstract: "List the threading strategies and how each one works."
    )

    func run() {
        let width = StrategyName.allCases.map(\.rawValue.count).max() ?? 0
        for name in StrategyName.allCases {
            let padding = String(repeating: " ", count: width - name.rawValue.count)
            print("\(name.rawValue)\(padding)  \(name.strategy.summary)")
        }
    }
}
