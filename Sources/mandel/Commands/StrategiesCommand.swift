import ArgumentParser
import MandelbrotCore
import StrategyCatalog

/// `mandel strategies`: one line per strategy on how it works.
struct StrategiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strategies",
        abstract: "List the threading strategies and how each one works."
    )

    func run() async throws {
        let width = StrategyCatalog.names.map(\.count).max() ?? 0
        try await CommandRun.perform(grace: 0) { _ in
            for strategy in StrategyCatalog.all {
                let padding = String(repeating: " ", count: width - strategy.name.count)
                try StandardOutput.line("\(strategy.name)\(padding)  \(strategy.summary)")
            }
        }
    }
}
