package import ArgumentParser
import Comparison
package import MandelbrotCore

/// How each strategy behaves beyond its speed: the main queue's responsiveness, work that
/// waits, and cancellation. `render` and `compare` share these options.
package struct BehaviourOptions: ParsableArguments {
    package init() {}

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Tick on the main queue every this many milliseconds, 0.1…1000, and measure how late each tick runs; "
                + "off to disable (default: 2).",
            valueName: "ms|off"),
        transform: { text in
            HeartbeatInterval(milliseconds: text.trimmingBlanks == "off" ? nil : try ValueParsing.real(text))
        })
    package var heartbeat = HeartbeatInterval(milliseconds: 2)

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "After each tile's pixels, wait this many milliseconds, 0…1000: work that waits for I/O or a lock "
                + "(default: 0); mandel sweep takes a list such as 0,1,5,20.",
            valueName: "ms"),
        transform: { try ValueParsing.list($0, item: ValueParsing.real) })
    package var tileWait: [Double] = [0]

    @Option(
        help: ArgumentHelp(
            "How a tile waits: blocking (the thread sleeps) or async (the mechanism's own way: asyncAfter, "
                + "Task.sleep, an asynchronous Operation; thread, pthread and apply can only block) (default: "
                + "blocking)."
        ))
    package var tileWaitMode: TileWait.Mode?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Cancel each run this many milliseconds after it starts, 0…3600000, and measure how the strategy stops: "
                + "latency to the completion, tiles started and CPU used after the request. No picture is written "
                + "for a cancelled render.",
            valueName: "ms"),
        transform: { try ValueParsing.real($0) })
    package var cancelAfter: Double?

    @Option(
        help: ArgumentHelp(
            "Who stops a cancelled run: flag (the shared flag every strategy checks) or native (only the "
                + "mechanism's own cancel: Thread.cancel, cancelAllOperations, DispatchWorkItem.cancel, "
                + "Task.cancel) (default: flag)."))
    package var cancelBy: CancellationMode?

    package mutating func validate() throws {
        if let milliseconds = heartbeat.milliseconds, !(0.1...1000).contains(milliseconds) {
            throw ValidationError("--heartbeat must be from 0.1 to 1000 milliseconds, or off (got \(milliseconds))")
        }
        if let outside = tileWait.first(where: { !(0...1000).contains($0) }) {
            throw ValidationError("--tile-wait must be from 0 to 1000 milliseconds (got \(outside))")
        }
        if tileWaitMode != nil, tileWait.allSatisfy({ $0 == 0 }) {
            throw ValidationError(
                "--tile-wait-mode says how a tile waits, and no tile waits (--tile-wait is 0 or not given); "
                    + "give --tile-wait a number of milliseconds above 0")
        }
        if let cancelAfter, !(0...3_600_000).contains(cancelAfter) {
            throw ValidationError("--cancel-after must be from 0 to 3600000 milliseconds (got \(cancelAfter))")
        }
        if cancelBy != nil, cancelAfter == nil {
            throw ValidationError(
                "--cancel-by says who stops a cancelled run; add --cancel-after with a number of milliseconds")
        }
    }

    /// The heartbeat's interval in nanoseconds, or nil when it is off.
    package var heartbeatNanoseconds: UInt64? {
        heartbeat.milliseconds.map { UInt64(($0 * 1e6).rounded()) }
    }

    /// The wait after each tile, in milliseconds: the first one given.
    package var tileWaitMilliseconds: Double { tileWait.first ?? 0 }

    /// The wait after each tile.
    package var wait: TileWait {
        TileWait(nanoseconds: UInt64((tileWaitMilliseconds * 1e6).rounded()), mode: tileWaitMode ?? .blocking)
    }

    /// Refuses a list of waits, for the commands that measure one configuration.
    package func validateSingleWait(command: String) throws {
        if tileWait.count > 1 {
            throw ValidationError(
                "--tile-wait takes one value for mandel \(command); to measure several, use mandel sweep --tile-wait "
                    + "with a list"
            )
        }
    }

    /// These options with one wait of a sweep's list.
    package func waiting(_ milliseconds: Double) -> BehaviourOptions {
        var options = self
        options.tileWait = [milliseconds]
        return options
    }

    /// When each run is cancelled, in nanoseconds after its start; nil for no cancel.
    package var cancelAfterNanoseconds: UInt64? { cancelAfter.map { UInt64(($0 * 1e6).rounded()) } }

    /// Who stops a cancelled run.
    package var cancellationMode: CancellationMode { cancelBy ?? .flag }

    /// The run's settings: these options' cancellation and tile wait, with `sharing` and `order`.
    package func settings(sharing: HistogramSharing, order: TileOrder) -> RunSettings {
        RunSettings(cancellationMode: cancellationMode, tileWait: wait, sharing: sharing, order: order)
    }
}

/// `--heartbeat`: an interval in milliseconds, or off.
package struct HeartbeatInterval: CustomStringConvertible {
    package let milliseconds: Double?
    package var description: String { milliseconds.map { NumberFormat.compact($0) } ?? "off" }
}
