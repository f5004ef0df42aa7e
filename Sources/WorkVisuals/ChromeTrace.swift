public import Foundation
public import MandelbrotCore

/// A render as a Chrome Trace Event Format file, for Perfetto or chrome://tracing.
///
/// One track per worker with one slice per tile (its rectangle, pixels and
/// iterations in `args`; histogram colouring's counting pass as `count tile N`),
/// and a track for the main queue with the render span and the completion callback.
public enum ChromeTrace {
    /// The track id of the main queue.
    static let mainQueueTrack = 1_000_000

    /// The trace of `report` as JSON.
    public static func json(for report: RenderReport, title: String) -> Data {
        var events: [[String: Any]] = [
            ["name": "process_name", "ph": "M", "pid": 1, "args": ["name": title]],
            ["name": "thread_name", "ph": "M", "pid": 1, "tid": mainQueueTrack, "args": ["name": "main queue"]],
            ["name": "render (\(report.strategy))", "cat": "render", "ph": "X", "pid": 1, "tid": mainQueueTrack,
             "ts": 0, "dur": microseconds(report.wallSeconds)],
            ["name": "completion on the main queue", "cat": "callback", "ph": "i", "s": "t", "pid": 1,
             "tid": mainQueueTrack, "ts": microseconds(report.wallSeconds)],
        ]
        for worker in 0..<report.threadsUsed {
            events.append(["name": "thread_name", "ph": "M", "pid": 1, "tid": worker, "args": ["name": "worker \(worker)"]])
        }
        let passes = [("count ", "histogram count", report.countingTiles), ("", "tile", report.tiles)]
        for (prefix, category, records) in passes {
            events += tileSlices(records, prefix: prefix, category: category)
        }
        let trace: [String: Any] = ["traceEvents": events, "displayTimeUnit": "ms"]
        return try! JSONSerialization.data(withJSONObject: trace, options: [.sortedKeys])
    }

    /// One slice per finished tile of one pass, on its worker's track.
    private static func tileSlices(_ records: [TileRecord], prefix: String, category: String) -> [[String: Any]] {
        var events: [[String: Any]] = []
        for (index, tile) in records.enumerated() {
            guard let worker = tile.worker else { continue }
            events.append([
                "name": "\(prefix)tile \(index)", "cat": category, "ph": "X", "pid": 1, "tid": worker,
                "ts": microseconds(tile.start), "dur": max(microseconds(tile.end - tile.start), 0.001),
                "args": ["tile": index, "rect": tile.rect.description, "x": tile.rect.x, "y": tile.rect.y,
                         "width": tile.rect.width, "height": tile.rect.height, "pixels": tile.rect.pixelCount,
                         "iterations": tile.iterations],
            ])
        }
        return events
    }

    static func microseconds(_ seconds: Double) -> Double { (seconds * 1e6 * 1000).rounded() / 1000 }
}
