import Foundation
import MandelbrotCore

/// The aligned text table that `mandel compare` and `mandel sweep` print.
package enum ComparisonTable {
    /// One row per strategy; the fastest marked with `*`.
    package static func render(_ comparison: StrategyComparison) -> String {
        var header = [
            "  strategy", "median", "min", "max", "sd", "95% CI of median", "cpu", "speedup", "effic.",
            "Mpix/s", "iter/s", "imbal.", "threads", "checksum", "verdict",
        ]
        // The main queue's lateness, when the heartbeat ran: two columns before the checksum.
        let showsMainQueue = comparison.results.contains { $0.behaviour.mainQueue != nil }
        if showsMainQueue { header.insert(contentsOf: ["main p99", "main max"], at: 13) }
        var rows = [header]
        let fastest = comparison.hasVerdicts ? comparison.fastest.strategy : nil
        for result in comparison.results {
            let interval =
                result.wall.medianInterval.map {
                    "\(NumberFormat.milliseconds($0.lowerBound))–\(NumberFormat.milliseconds($0.upperBound))"
                } ?? "n/a"
            var row = [
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
            ]
            if showsMainQueue {
                let mainQueue = result.behaviour.mainQueue
                row.insert(
                    contentsOf: [mainQueue?.p99, mainQueue?.max].map { $0.map(NumberFormat.milliseconds) ?? "n/a" },
                    at: 13)
            }
            rows.append(row)
        }
        return align(rows, rightAligned: Set(1...(showsMainQueue ? 14 : 12)))
            + "\ntimes in ms; * fastest; speedup against \(comparison.baselineName)'s median"
            + (comparison.results.contains { $0.baseline != nil }
                ? " (a row named strategy/x against \(comparison.baselineName)/x)" : "")
            + "; imbal. = busiest worker / mean"
            + (showsMainQueue ? "; main p99/max = how late the main queue's heartbeat ran" : "")
    }

    /// The table of what comes first: per row, the order asked for, when the preview reached
    /// the main queue (with `--preview`), when the picture's central quarter was done, and when
    /// the whole picture was (medians per run).
    package static func order(_ comparison: StrategyComparison) -> String {
        let previews = comparison.results.contains { $0.behaviour.firstPictureSeconds != nil }
        var header = ["  strategy", "order", "centre done", "total", "centre / total"]
        if previews { header.insert(contentsOf: ["first picture", "first / total"], at: 2) }
        var rows = [header]
        for result in comparison.results {
            guard let centre = result.behaviour.centreDoneSeconds else { continue }
            let total = result.wall.median
            func share(_ seconds: Double) -> String { total > 0 ? String(format: "%.2f", seconds / total) : "n/a" }
            var row = [
                "  " + result.strategy, result.order, NumberFormat.milliseconds(centre),
                NumberFormat.milliseconds(total), share(centre),
            ]
            if previews {
                let first = result.behaviour.firstPictureSeconds
                row.insert(
                    contentsOf: [first.map(NumberFormat.milliseconds) ?? "n/a", first.map(share) ?? "n/a"], at: 2)
            }
            rows.append(row)
        }
        return align(rows, rightAligned: Set(2..<header.count))
            + (previews ? "\nfirst picture = ms until the preview was delivered on the main queue" : "")
            + "\ncentre done = ms until every tile touching the picture's central quarter was done; total = the "
            + "median wall time"
    }

    /// The table of histogram colouring's sharing: per row, how its workers merged the
    /// histogram and what that cost (medians per run).
    package static func sharing(_ comparison: StrategyComparison) -> String {
        let header = ["  strategy", "merge", "batch", "batches", "merging", "per batch", "waiting", "per batch"]
        var rows = [header]
        for result in comparison.results {
            guard let merge = result.behaviour.merge else { continue }
            rows.append([
                "  " + result.strategy, merge.sharing.merge.rawValue, String(merge.sharing.batch),
                String(merge.batches),
                NumberFormat.milliseconds(merge.mergeSeconds),
                merge.batches > 0 ? String(format: "%.2f", merge.mergeSeconds / Double(merge.batches) * 1e6) : "n/a",
                NumberFormat.milliseconds(merge.waitSeconds),
                merge.batches > 0 ? String(format: "%.2f", merge.waitSeconds / Double(merge.batches) * 1e6) : "n/a",
            ])
        }
        return align(rows, rightAligned: Set(2..<header.count))
            + "\nmerging = ms per run spent adding batches to the bins, wherever it ran; waiting = ms per run "
            + "workers spent handing batches over (waiting for the lock, enqueueing a block), in wall time: with "
            + "more threads than cores it includes time descheduled; per batch in µs"
    }

    /// The second table: threads, memory, missed frames and, after `--cancel-after`, how each
    /// strategy stopped.
    package static func behaviour(_ comparison: StrategyComparison) -> String {
        let cancels = comparison.results.contains { $0.behaviour.cancel != nil }
        var header = ["  strategy", "peak threads", "peak MiB", "missed frames"]
        if cancels { header += ["cancel latency", "tiles after", "cpu after", "running after", "finished first"] }
        var rows = [header]
        for result in comparison.results {
            let behaviour = result.behaviour
            var row = [
                "  " + result.strategy, behaviour.peakThreads.map(String.init) ?? "n/a",
                behaviour.peakResidentBytes.map { String($0 >> 20) } ?? "n/a",
                behaviour.mainQueue?.missedFrames.map { String($0) } ?? "n/a",
            ]
            if cancels {
                if let cancel = behaviour.cancel {
                    row += [
                        NumberFormat.milliseconds(cancel.latency), NumberFormat.decimal(cancel.tilesAfterCancel),
                        NumberFormat.milliseconds(cancel.cpuAfterCancel), String(cancel.threadsRunningAfter),
                        String(cancel.finishedFirst),
                    ]
                } else {
                    row += ["n/a", "n/a", "n/a", "n/a", "n/a"]
                }
            }
            rows.append(row)
        }
        return align(rows, rightAligned: Set(1..<header.count))
            + "\npeak threads of the process while it ran (its instruments' own not counted); missed frames = 60 Hz "
            + "frames with no heartbeat"
            + (cancels
                ? "\ncancel latency = request to completion on the main queue, ms; tiles after = tiles started after "
                    + "the request (median); cpu after = processor ms used after it; running after = threads still "
                    + "running at the completion" : "")
    }

    /// Pads the columns; numeric columns are right-aligned.
    package static func align(_ rows: [[String]], rightAligned: Set<Int>) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return rightAligned.contains(column) ? padding + row[column] : row[column] + padding
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }

}
