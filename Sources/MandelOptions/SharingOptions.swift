package import ArgumentParser
package import MandelbrotCore

/// How histogram colouring's workers share the histogram: the mechanism and the batch.
///
/// `--merge` takes one value for `render`, a list for `compare` and `sweep` (one row
/// per strategy and mechanism); `--merge-batch` takes one value, or a list for `sweep`.
package struct SharingOptions: ParsableArguments {
    package init() {}

    @Option(
        name: [.customLong("merge"), .customLong("merges")],
        help: ArgumentHelp(
            "How histogram colouring's workers merge their escape values: queue (a serial queue owns the bins), "
                + "mutex (a lock around them), barrier (barrier writes on a concurrent queue), atomic (an atomic "
                + "increment per value) or private (a histogram per worker, summed at the end) (default: queue); "
                + "mandel compare and sweep take a list such as queue,mutex,atomic.",
            valueName: "merge"),
        transform: { try ValueParsing.words($0, kind: "merge") })
    package var merge: [HistogramMerge]?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Escape values a worker collects before it merges them, 1…\(HistogramSharing.maximumBatch) "
                + "(default: \(HistogramSharing.standard.batch)); mandel sweep takes a list such as 1,16,256,4096.",
            valueName: "n"),
        transform: {
            try ValueParsing.list($0) {
                try ValueParsing.integer($0, allowed: "from 1 to \(HistogramSharing.maximumBatch)")
            }
        })
    package var mergeBatch: [Int]?

    package mutating func validate() throws {
        if let batches = mergeBatch,
            let outside = batches.first(where: { !(1...HistogramSharing.maximumBatch).contains($0) })
        {
            throw ValidationError("--merge-batch must be from 1 to \(HistogramSharing.maximumBatch) (got \(outside))")
        }
        for (option, values) in [
            ("--merge", merge?.map(\.rawValue) ?? []), ("--merge-batch", mergeBatch?.map(String.init) ?? []),
        ] {
            if let repeated = ValueParsing.firstRepeated(values) {
                throw ValidationError("\(option) lists \(repeated) more than once")
            }
        }
    }

    /// Refuses the options without histogram colouring, which alone shares a histogram;
    /// and lists where `command` takes one value (`lists` names the options that may have one).
    package func validate(for colorScheme: ColorScheme, command: String, lists: Set<String>) throws {
        if colorScheme != .histogram, let option = merge != nil ? "--merge" : mergeBatch != nil ? "--merge-batch" : nil
        {
            throw ValidationError(
                "\(option) says how histogram colouring's workers share the histogram; add --color histogram "
                    + "(got --color \(colorScheme.rawValue))")
        }
        for (option, count) in [("--merge", merge?.count ?? 0), ("--merge-batch", mergeBatch?.count ?? 0)]
        where count > 1 && !lists.contains(option) {
            let remedy =
                option == "--merge"
                ? "to measure several, use mandel compare or sweep with a list"
                : "to measure several, use mandel sweep --merge-batch with a list"
            throw ValidationError("\(option) takes one value for mandel \(command); \(remedy)")
        }
    }

    /// The mechanisms asked for, in order; queue alone by default.
    package var merges: [HistogramMerge] { merge ?? [HistogramSharing.standard.merge] }

    /// The batch size: the first one given, or the standard one.
    package var batch: Int { mergeBatch?.first ?? HistogramSharing.standard.batch }

    /// The first mechanism with the first batch size: what `render` uses.
    package var sharing: HistogramSharing { HistogramSharing(merge: merges[0], batch: batch) }

    /// One sharing per mechanism asked for, each with `batch` values a batch.
    package func sharings(batch: Int? = nil) -> [HistogramSharing] {
        merges.map { HistogramSharing(merge: $0, batch: batch ?? self.batch) }
    }
}
