import Foundation

/// The aligned text table that `mandel compare` and `mandel sweep` print.
public enum ComparisonTable {
    /// One row per strategy; the fastest marked with `*`.
    public static func render(_ comparison: StrategyComparison) -> String {
        let header = [
            "  strategy", "median", "min", "max", "sd", "95% CI of median", "cpu", "speedup", "effic.",
            "Mpix/s", "iter/s", "imbal.", "threads", "checksum", "verdict",
        ]
        var rows = [header]
        let fastest = comparison.hasVerdicts ? comparison.fastest.strategy : nil
        for result in comparison.results {
            let interval =
                result.wall.medianInterval.map {
                    "\(NumberFormat.milliseconds($0.lowerBound))–\(NumberFormat.milliseconds($0.upperBound))"
                } ?? "n/a"
            rows.append([
                (result.strategy == fastest ? "* " : "  ") + result.strategy,
                NumberFormat.milliseconds(result.wall.median),
                NumberFormat.milliseconds(result.wall.min),
                NumberFormat.milliseconds(result.wall.max),
                NumberFormat.milliseconds(result.wall.standardDeviation),
                interval,
                NumberFormat.milliseconds(result.userSeconds + result.systemSeconds),
                comparison.speedup(of: result).map { String(format: "%.2fx", $0) } ?? "n/a",
                comparison.efficiency(of: result).map { String(format: "%.0f%%", $0 * 100) } ?? "n/a",
                String(format: "%.1f", result.megapixelsPerSecond),
                NumberFormat.rate(result.iterationsPerSecond),
                String(format: "%.2f", result.imbalance),
                "\(result.threadsUsed)",
                String(result.checksumText.prefix(8)),
                comparison.verdict(of: result).description,
            ])
        }
        return align(rows, rightAligned: Set(1...12))
            + "\ntimes in ms; * fastest; speedup against \(comparison.baselineName)'s median; imbal. = busiest worker / mean"
    }

    /// Pads the columns; numeric columns are right-aligned.
    public static func align(_ rows: [[String]], rightAligned: Set<Int>) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return rightAligned.contains(column) ? padding + row[column] : row[column] + padding
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }

}
