import ArgumentParser

/// `--part` and `--frame`'s value: `K/N` (K from 0), or `auto`, which asks the batch engine running mandel.
package enum IndexChoice: ExpressibleByArgument, Equatable {
    case fixed(index: Int, count: Int)
    case auto

    package init?(argument: String) {
        guard let choice = try? ValueParsing.indexChoice(argument) else { return nil }
        self = choice
    }
}

/// Which of N pieces of work this process does: from `K/N`, or from the variables a batch engine sets.
package enum EngineIndex {
    /// One engine's variables: the index, its first value, and the count, if it sets one.
    package struct Source {
        package let engine: String
        package let indexVariable: String
        /// The variable holding the index's first value, if the engine has one (Slurm's `--array=1-7`).
        package let minimumVariable: String?
        /// What the index counts from when there is no such variable (GNU parallel's 1).
        package let base: Int
        package let countVariable: String?
    }

    /// The engines `auto` knows, in the order it looks for them.
    package static let sources = [
        Source(
            engine: "Slurm", indexVariable: "SLURM_ARRAY_TASK_ID", minimumVariable: "SLURM_ARRAY_TASK_MIN", base: 0,
            countVariable: "SLURM_ARRAY_TASK_COUNT"),
        Source(
            engine: "Kubernetes", indexVariable: "JOB_COMPLETION_INDEX", minimumVariable: nil, base: 0,
            countVariable: nil),
        Source(
            engine: "AWS Batch", indexVariable: "AWS_BATCH_JOB_ARRAY_INDEX", minimumVariable: nil, base: 0,
            countVariable: "AWS_BATCH_JOB_ARRAY_SIZE"),
        Source(
            engine: "GNU parallel", indexVariable: "PARALLEL_SEQ", minimumVariable: nil, base: 1, countVariable: nil),
    ]

    /// K and N for `option` (`--part` or `--frame`), whose count option (`--parts`, `--frames`) gave `count`.
    ///
    /// - Throws: `ValidationError` naming the option or the variable, and what is allowed.
    package static func resolve(
        _ choice: IndexChoice, count: Int?, option: String, countOption: String, environment: [String: String]
    ) throws -> (index: Int, count: Int) {
        switch choice {
        case .fixed(let index, let total):
            guard total >= 1, index < total else {
                throw ValidationError(
                    "\(option) \(index)/\(total): K counts from 0 to N − 1, so K must be less than N and N at least 1")
            }
            if let count, count != total {
                throw ValidationError(
                    "\(option) \(index)/\(total) and \(countOption) \(count) disagree; give one of them")
            }
            return (index, total)
        case .auto:
            guard let source = sources.first(where: { environment[$0.indexVariable] != nil }) else {
                throw ValidationError(
                    "\(option) auto takes its number from a batch engine, and none is set ("
                        + sources.map(\.indexVariable).joined(separator: ", ") + "); give \(option) K/N")
            }
            func number(_ variable: String) throws -> Int {
                let text = environment[variable]!
                guard let value = Int(text.trimmingBlanks), value >= 0 else {
                    throw ValidationError("\(option) auto: \(variable) is '\(text)', not a number 0 or more")
                }
                return value
            }
            let raw = try number(source.indexVariable)
            let first =
                try source.minimumVariable.flatMap { environment[$0] == nil ? nil : try number($0) } ?? source.base
            let index = raw - first
            let engineCount = try source.countVariable.flatMap { environment[$0] == nil ? nil : try number($0) }
            if let engineCount, let count, engineCount != count {
                throw ValidationError(
                    "\(option) auto: \(source.countVariable!) is \(engineCount) and \(countOption) is \(count); "
                        + "they disagree (remove \(countOption), or make the array as large)")
            }
            guard let total = count ?? engineCount else {
                throw ValidationError(
                    "\(option) auto: \(source.engine) gives only the index (\(source.indexVariable)); "
                        + "add \(countOption) N")
            }
            guard index >= 0, index < total else {
                let shown = first == 0 ? "\(raw)" : "\(raw) (from \(first))"
                throw ValidationError(
                    "\(option) auto: \(source.indexVariable) is \(shown), outside 0…\(total - 1) "
                        + "for \(total) (\(source.engine) counts from \(first))")
            }
            return (index, total)
        }
    }
}
