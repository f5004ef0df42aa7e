import ArgumentParser
import MandelOptions
import MandelbrotCore
import RenderModel
import StrategyCatalog

/// `mandel strategies`: one line per strategy on how it works.
struct StrategiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strategies",
        abstract: "List the threading strategies and how each one works."
    )

    @Flag(
        help:
            ArgumentHelp(
                "Also say how each mechanism cancels, waits without a thread, orders work by priority, makes one "
                    + "render "
                    + "wait for another and recovers from a crashed worker.")
    )
    var details = false

    func run() async throws {
        let width = StrategyCatalog.names.map(\.count).max() ?? 0
        try await CommandRun.perform(grace: 0) { _ in
            for strategy in StrategyCatalog.all {
                let padding = String(repeating: " ", count: width - strategy.name.count)
                try StandardOutput.line("\(strategy.name)\(padding)  \(strategy.summary)")
                guard details else { continue }
                let indent = String(repeating: " ", count: width + 2)
                for (what, how) in StrategyCatalog.details(of: strategy) {
                    try StandardOutput.line("\(indent)\(what): \(how)")
                }
            }
        }
    }
}
