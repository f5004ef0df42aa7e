package import ArgumentParser
package import Comparison
package import ImageFiles
package import MandelbrotCore
import StrategyCatalog

/// The options `compare` and `sweep` share: which strategies, how many runs, and where the results go.
package struct MeasurementOptions: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "Strategies to measure, comma-separated (default: all). \(StrategyCatalog.baseline.name) is always "
                + "measured, as the baseline.",
            valueName: "list"),
        transform: { text in
            try ValueParsing.list(text) { name in
                guard let choice = StrategyChoice(argument: String(name)) else {
                    throw ValueParsing.Refusal(
                        description:
                            "unknown strategy '\(name.trimmingBlanks)'; choose from \(StrategyChoice.allowedList)")
                }
                return choice
            }
        })
    package var strategies: [StrategyChoice]?

    @Option(
        parsing: .unconditional, help: "Uncounted runs of each strategy before the counted ones, 0…100.",
        transform: { try ValueParsing.integer($0, allowed: "from 0 to 100") })
    package var warmup = 1

    @Option(
        parsing: .unconditional, help: "Counted runs of each strategy, 1…1000; 3 or more for a verdict.",
        transform: { try ValueParsing.integer($0, allowed: "from 1 to 1000") })
    package var runs = 5

    @Option(
        help: ArgumentHelp(
            "Write the results as JSON (hyperfine-style schema, see the README); - for standard output.",
            valueName: "file"))
    package var json: String?

    @Option(
        help: ArgumentHelp("Write the results as CSV, one row per strategy; - for standard output.", valueName: "file"))
    package var csv: String?

    @Option(help: ArgumentHelp("Write a chart as a self-contained SVG; - for standard output.", valueName: "file.svg"))
    package var chart: String?

    @Option(
        parsing: .unconditional,
        help: "Seconds the measurement may still take after SIGTERM before it is cancelled, 0…3600.",
        transform: { try ValueParsing.real($0) })
    package var grace = 5.0

    package mutating func validate() throws {
        try validateGrace(grace)
        guard (0...100).contains(warmup) else {
            throw ValidationError("--warmup must be from 0 to 100 (got \(warmup))")
        }
        guard (1...1000).contains(runs) else { throw ValidationError("--runs must be from 1 to 1000 (got \(runs))") }
        // One rule for every list: an item given twice is refused, never silently dropped.
        if let repeated = ValueParsing.firstRepeated(strategies?.map(\.strategy.name) ?? []) {
            throw ValidationError("--strategies lists \(repeated) more than once")
        }
    }

    /// The strategies in order, the baseline first, each once.
    package var strategyList: [any RenderStrategy] {
        guard let strategies else { return StrategyCatalog.all }
        var list = [StrategyCatalog.baseline]
        for choice in strategies where !list.contains(where: { $0.name == choice.strategy.name }) {
            list.append(choice.strategy)
        }
        return list
    }

    /// Writes the results into the files opened for `outputs`, in the same order.
    package func write(export: ComparisonExport, chart: String, to files: [OutputFile]) throws(ImageFileError) {
        for (file, output) in zip(files, outputs) {
            switch output.kind {
            case .json: try file.write(Array(export.json))
            case .csv: try file.write(Array(export.csv.utf8))
            case .chart: try file.write(Array(chart.utf8))
            }
        }
    }

    /// What a result file holds, named by its option.
    package enum ResultFile: String {
        case json = "--json"
        case csv = "--csv"
        case chart = "--chart"
    }

    /// The result files asked for.
    package var outputs: [Output<ResultFile>] { Output.given([.json: json, .csv: csv, .chart: chart]) }
}

/// Checks `--grace`: a finite number of seconds from 0 to an hour.
package func validateGrace(_ grace: Double) throws {
    guard (0...Limits.maximumGrace).contains(grace) else {
        throw ValidationError("--grace must be a number of seconds from 0 to 3600 (got \(grace))")
    }
}

/// Refuses two outputs that are the same file, however they are spelled, and more than one on standard output.
package func validateDistinctOutputs(_ outputs: [(option: String, path: String)]) throws {
    if let (first, second) = OutputSet.firstSameFile(among: outputs.map(\.path)) {
        let options = outputs.filter { $0.path == first || $0.path == second }.map(\.option)
        let names =
            first == second ? "'\(Display.path(first))'" : "'\(Display.path(first))' and '\(Display.path(second))'"
        throw ValidationError(
            "\(options.joined(separator: " and ")) name the same file (\(names)); each output needs a file of its own")
    }
}
