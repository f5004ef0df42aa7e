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
    /// One engine's variables: the index, its first value, its step, its last value, and the count, if it
    /// sets them.
    package struct Source {
        package let engine: String
        package let indexVariable: String
        /// The variable holding the index's first value, if the engine has one (Slurm's `--array=1-7`).
        package let minimumVariable: String?
        /// What the index counts from when there is no such variable (GNU parallel's 1).
        package let base: Int
        package let countVariable: String?
        /// The variable holding the step between indices (Slurm's `--array=0-12:4`), if the engine has one.
        package var stepVariable: String? = nil
        /// The variable holding the index's last value, if the engine has one: with the first, the step and the
        /// count, it tells a range from a list (Slurm's `--array=1,3,7`), whose task cannot know its place.
        package var maximumVariable: String? = nil
    }

    /// The engines `auto` knows, in the order it looks for them.
    package static let sources = [
        Source(
            engine: "Slurm", indexVariable: "SLURM_ARRAY_TASK_ID", minimumVariable: "SLURM_ARRAY_TASK_MIN", base: 0,
            countVariable: "SLURM_ARRAY_TASK_COUNT", stepVariable: "SLURM_ARRAY_TASK_STEP",
            maximumVariable: "SLURM_ARRAY_TASK_MAX"),
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
                    throw ValidationError(
                        "\(option) auto: \(variable) is '\(text)', not a whole number from 0 to \(Int.max)")
                }
                return value
            }
            func optionalNumber(_ variable: String?) throws -> Int? {
                try variable.flatMap { environment[$0] == nil ? nil : try number($0) }
            }
            let raw = try number(source.indexVariable)
            let first = try optionalNumber(source.minimumVariable) ?? source.base
            let step = try optionalNumber(source.stepVariable) ?? 1
            guard step >= 1 else {
                throw ValidationError("\(option) auto: \(source.stepVariable!) is 0; an array's step is 1 or more")
            }
            let engineCount = try optionalNumber(source.countVariable)
            if let engineCount, engineCount < 1 {
                throw ValidationError(
                    "\(option) auto: \(source.countVariable!) is 0; an array has 1 task or more")
            }
            if let engineCount, let count, engineCount != count {
                throw ValidationError(
                    "\(option) auto: \(source.countVariable!) is \(engineCount) and \(countOption) is \(count); "
                        + "they disagree (remove \(countOption), or make the array as large; to render some again, "
                        + "give \(option) K/\(count))")
            }
            if let engineCount, let last = try optionalNumber(source.maximumVariable) {
                // A range first…last with this step holds exactly count tasks; a list (1,3,7) does not.
                let span = (engineCount - 1).multipliedReportingOverflow(by: step)
                guard !span.overflow, last >= first, last - first == span.partialValue else {
                    throw ValidationError(
                        "\(option) auto: \(source.engine)'s array of \(engineCount) task\(engineCount == 1 ? "" : "s") "
                            + "from \(first) to \(last) (step \(step)) is a list, not a range, and a task cannot know "
                            + "its place in it; number the tasks as a range (--array=0-\(engineCount - 1)), or give "
                            + "\(option) K/N")
                }
            }
            guard let total = count ?? engineCount else {
                throw ValidationError(
                    "\(option) auto: \(source.engine) gives only the index (\(source.indexVariable)); "
                        + "add \(countOption) N")
            }
            let offset = raw - first
            guard offset >= 0, offset % step == 0, offset / step < total else {
                let range =
                    step == 1
                    ? "\(first)…\(first + (total - 1))"
                    : "\(first), \(first + step), … (step \(step))"
                throw ValidationError(
                    "\(option) auto: \(source.indexVariable) is \(raw), outside \(range) for \(total) "
                        + "(\(source.engine) counts from \(first))")
            }
            let index = offset / step
            return (index, total)
        }
    }
}
