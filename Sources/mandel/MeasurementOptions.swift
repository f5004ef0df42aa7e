import ArgumentParser
import Foundation
import ImageFiles

/// The options `compare` and `sweep` share: which strategies, how many runs, and where the results go.
struct MeasurementOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Strategies to measure, comma-separated (default: all). serial is always measured, as the baseline.", valueName: "list"))
    var strategies: String?

    @Option(parsing: .unconditional, help: "Uncounted runs of each strategy before the counted ones, 0…100.")
    var warmup = 1

    @Option(parsing: .unconditional, help: "Counted runs of each strategy, 1…1000; 3 or more for a verdict.")
    var runs = 5

    @Option(help: ArgumentHelp("Write the results as JSON (hyperfine-style schema, see the README).", valueName: "file"))
    var json: String?

    @Option(help: ArgumentHelp("Write the results as CSV, one row per strategy.", valueName: "file"))
    var csv: String?

    @Option(help: ArgumentHelp("Write a chart as a self-contained SVG.", valueName: "file.svg"))
    var chart: String?

    @Option(parsing: .unconditional, help: "Seconds the measurement may still take after SIGTERM before it is cancelled, 0…3600.")
    var grace = 5.0

    mutating func validate() throws {
        try validateGrace(grace)
        _ = try strategyNames()
        guard (0...100).contains(warmup) else { throw ValidationError("--warmup must be from 0 to 100 (got \(warmup))") }
        guard (1...1000).contains(runs) else { throw ValidationError("--runs must be from 1 to 1000 (got \(runs))") }
    }

    /// The strategies in order, serial first.
    func strategyNames() throws -> [StrategyName] {
        guard let strategies else { return StrategyName.allCases }
        var names: [StrategyName] = [.serial]
        for part in strategies.split(separator: ",", omittingEmptySubsequences: false) {
            let text = part.trimmingCharacters(in: .whitespaces)
            guard let name = StrategyName(rawValue: text) else {
                throw ValidationError("--strategies: unknown strategy '\(text)'; choose from \(StrategyName.allowedList)")
            }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// Opens every requested output before any measuring, so a bad path fails at once.
    func openOutputs() throws(ImageFileError) -> (json: OutputFile?, csv: OutputFile?, chart: OutputFile?) {
        (try json.map { path throws(ImageFileError) in try OutputFile(path: path) },
         try csv.map { path throws(ImageFileError) in try OutputFile(path: path) },
         try chart.map { path throws(ImageFileError) in try OutputFile(path: path) })
    }
}
