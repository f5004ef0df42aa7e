import Foundation

/// The aligned text table that `mandel compare` and `mandel sweep` print.
public enum ComparisonTable {
    /// One row per strategy; the fastest marked with `*`.
    public static func render(_ comparison: StrategyComparison) -> String {
        let header = ["  strategy", "median", "min", "max", "sd", "95% CI of median", "cpu", "speedup", "effic.",
                      "Mpix/s", "iter/s", "imbal.", "threads", "checksum", "verdict"]
        var rows = [header]
        let fastest = comparison.fastest.strategy
        for result in comparison.results {
            let interval = result.wall.medianInterval.map { "\(milliseconds($0.lowerBound))–\(milliseconds($0.upperBound))" } ?? "n/a"
            rows.append([
                (result.strategy == fastest ? "* " : "  ") + result.strategy,
                milliseconds(result.wall.median),
                milliseconds(result.wall.min),
                milliseconds(result.wall.max),
                milliseconds(result.wall.standardDeviation),
                interval,
                milliseconds(result.userSeconds + result.systemSeconds),
                comparison.speedup(of: result).map { String(format: "%.2fx", $0) } ?? "n/a",
                comparison.efficiency(of: result).map { String(format: "%.0f%%", $0 * 100) } ?? "n/a",
                String(format: "%.1f", result.megapixelsPerSecond),
                rate(result.iterationsPerSecond),
                String(format: "%.2f", result.imbalance),
                "\(result.threadsUsed)",
                String(result.checksumText.prefix(8)),
                comparison.verdict(of: result).description,
            ])
        }
        return align(rows, rightAligned: Set(1...12)) + "\ntimes in ms; * fastest; speedup against serial's median; imbal. = busiest worker / mean"
    }

    /// Pads the columns; numeric columns are right-aligned.
    static func align(_ rows: [[String]], rightAligned: Set<Int>) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return rightAligned.contains(column) ? padding + row[column] : row[column] + padding
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }

    /// Seconds as milliseconds with a sensible number of decimals.
    static func milliseconds(_ seconds: Double) -> String {
        let value = seconds * 1000
        return value < 10 ? String(format: "%.2f", value) : value < 100 ? String(format: "%.1f", value) : String(format: "%.0f", value)
    }

    /// A rate with an SI prefix: `1.52G`.
    static func rate(_ value: Double) -> String {
        switch value {
        case 1e9...: String(format: "%.2fG", value / 1e9)
        case 1e6...: String(format: "%.0fM", value / 1e6)
        default: String(format: "%.0fk", value / 1e3)
        }
    }
}
