import Foundation
public import MandelbrotCore

/// A render as a Chrome Trace Event Format file, for Perfetto or chrome://tracing.
///
/// One track per worker with one slice per tile (its rectangle, pixels and
/// iterations in `args`; histogram colouring's counting pass as `count tile N`),
/// and a track for the main queue with the render span and the completion callback.
///
/// The file is written as it is produced, in chunks of 64 KiB, so a trace of
/// millions of tiles takes no more memory than a trace of ten; a checkpoint
/// runs between chunks, so a signal stops it as it stops a render.
public struct ChromeTrace {
    /// Values sampled at a fixed interval during the render, drawn as a counter track.
    public struct Counter: Sendable {
        /// The track's name, with its unit.
        public let name: String
        /// Seconds from the render's start to the first value (negative if sampling began before it).
        public let firstSeconds: Double
        /// Seconds between values.
        public let intervalSeconds: Double
        /// The values, in order.
        public let values: [Double]

        public init(name: String, firstSeconds: Double, intervalSeconds: Double, values: [Double]) {
            self.name = name
            self.firstSeconds = firstSeconds
            self.intervalSeconds = intervalSeconds
            self.values = values
        }
    }

    /// The track id of the main queue.
    static let mainQueueTrack = 1_000_000
    private static let chunkBytes = 1 << 16

    private var buffer: [UInt8] = []
    private var eventCount = 0
    private let emit: ([UInt8]) throws -> Void
    private let checkpoint: () throws -> Void

    /// Writes the trace of `report` through `emit`, chunk by chunk.
    ///
    /// - Parameters:
    ///   - report: The render.
    ///   - title: The process's name in the viewer.
    ///   - emit: Called with each chunk of the file, in order; what it throws stops the trace.
    ///   - counters: Counter tracks beside the slices (the main queue's lateness, the process's threads).
    ///   - checkpoint: Runs before each chunk; what it throws (a stop) ends the trace.
    public static func write(
        _ report: RenderReport, title: String, counters: [Counter] = [], emit: @escaping ([UInt8]) throws -> Void,
        checkpoint: @escaping () throws -> Void = {}
    ) throws {
        var trace = ChromeTrace(emit: emit, checkpoint: checkpoint)
        try trace.append(#"{"displayTimeUnit":"ms","traceEvents":["#)
        try trace.event(#""name":"process_name","ph":"M","pid":1,"args":{"name":\#(json(title))}"#)
        try trace.event(#""name":"thread_name","ph":"M","pid":1,"tid":\#(mainQueueTrack),"args":{"name":"main queue"}"#)
        try trace.event(
            #""name":\#(json("render (\(report.strategy))")),"cat":"render","ph":"X","pid":1,"tid":\#(mainQueueTrack),"#
                + #""ts":0,"dur":\#(microseconds(report.wallSeconds))"#
        )
        try trace.event(
            #""name":"completion on the main queue","cat":"callback","ph":"i","s":"t","pid":1,"#
                + #""tid":\#(mainQueueTrack),"ts":\#(microseconds(report.wallSeconds))"#
        )
        for worker in 0..<report.threadsUsed {
            try trace.event(
                #""name":"thread_name","ph":"M","pid":1,"tid":\#(worker),"args":{"name":"worker \#(worker)"}"#)
        }
        for (prefix, category, records) in [
            ("count ", "histogram count", report.countingTiles), ("", "tile", report.tiles),
        ] {
            for (index, tile) in records.enumerated() {
                guard let worker = tile.worker else { continue }
                let rect = tile.rect
                try trace.event(
                    #""name":"\#(prefix)tile \#(index)","cat":"\#(category)","ph":"X","pid":1,"tid":\#(worker),"#
                        + #""ts":\#(microseconds(tile.start)),"#
                        + #""dur":\#(max(microseconds(tile.end - tile.start), 0.001)),"#
                        + #""args":{"tile":\#(index),"rect":"\#(rect)","x":\#(rect.x),"y":\#(rect.y),"#
                        + #""width":\#(rect.width),"height":\#(rect.height),"pixels":\#(rect.pixelCount),"#
                        + #""iterations":\#(tile.iterations)}"#
                )
            }
        }
        for counter in counters {
            // A value only where it changes, and the last one: the track is a step line either way.
            var previous: Double?
            for (index, value) in counter.values.enumerated()
            where value != previous || index == counter.values.count - 1 {
                previous = value
                let seconds = counter.firstSeconds + Double(index) * counter.intervalSeconds
                try trace.event(
                    #""name":\#(json(counter.name)),"ph":"C","pid":1,"ts":\#(microseconds(seconds)),"#
                        + #""args":{"value":\#(value)}"#)
            }
        }
        try trace.append("]}")
        try trace.flush()
    }

    private init(emit: @escaping ([UInt8]) throws -> Void, checkpoint: @escaping () throws -> Void) {
        self.emit = emit
        self.checkpoint = checkpoint
        buffer.reserveCapacity(Self.chunkBytes + 1024)
    }

    /// Appends one event object, given its members without the braces.
    private mutating func event(_ members: String) throws {
        try append((eventCount == 0 ? "{" : ",\n{") + members + "}")
        eventCount += 1
    }

    private mutating func append(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunkBytes { try flush() }
    }

    private mutating func flush() throws {
        try checkpoint()
        try emit(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Seconds as microseconds, to the nanosecond.
    static func microseconds(_ seconds: Double) -> Double { (seconds * 1e6 * 1000).rounded() / 1000 }

    /// A JSON string literal, as Foundation's encoder writes one.
    static func json(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // A string always encodes.
        return String(decoding: try! encoder.encode(text), as: UTF8.self)
    }
}
