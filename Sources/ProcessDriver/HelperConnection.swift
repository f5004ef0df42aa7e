import MandelbrotCore
import Platform

/// One helper process and its pipes, seen from the parent: a queue in another process.
///
/// Every way the helper can go wrong comes back as a ``Breakdown``: it died, it closed
/// its output, it said nothing for a whole deadline, or it sent a frame that is
/// malformed, too long, of the wrong kind, or about a tile it was not given. The helper may be
/// a stranger (a corrupted pipe, a program that is not mandel's helper): nothing it says is
/// trusted, and what it says goes into a one-line message with its control characters escaped.
final class HelperConnection {
    /// Why a helper is no longer usable; the parent kills it and starts another.
    struct Breakdown: Error, CustomStringConvertible {
        let description: String
    }

    /// A tile the helper has finished.
    struct Finished {
        let index: Int
        let iterations: UInt64
        let start: UInt64
        let end: UInt64
        /// The result's bytes, in the connection's buffer: valid until the next read.
        let result: UnsafeRawBufferPointer
    }

    let slot: Int
    let generation: Int
    private let child: ChildProcess
    private let deadline: UInt64
    /// When each tile not yet answered was asked for, by its index.
    private var requestTimes: [Int: UInt64] = [:]
    /// Where frames are read to; it grows to the longest frame. Allocated last in init: an init that throws
    /// before every property is set runs no deinit, and would leak it.
    private var buffer: UnsafeMutableRawBufferPointer

    /// Starts a helper; ``handshake(recipe:startupNanoseconds:)`` then gives it its work.
    init(executable: String, slot: Int, generation: Int, deadlineNanoseconds: UInt64) throws(Breakdown) {
        self.slot = slot
        self.generation = generation
        deadline = deadlineNanoseconds
        var environment = Self.helperEnvironment
        environment.append("SWIFT_BACKTRACE=enable=no")
        do {
            child = try ChildProcess(
                executable: executable,
                arguments: ["mandel"] + HelperLaunch(slot: slot, generation: generation, parent: getpid()).arguments,
                environment: environment)
        } catch {
            throw Breakdown(description: error.description)
        }
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
    }

    /// Sends the helper `recipe` and waits for its `ready`, at most `startupNanoseconds` (a
    /// program starting on a loaded machine may take far longer than a tile's deadline), and
    /// longer for a long recipe.
    /// Returns the seconds the helper spent building a deep view's table (0 without one).
    func handshake(recipe: [UInt8], startupNanoseconds: UInt64) throws(Breakdown) -> Double {
        guard recipe.count <= HelperFrame.maximumPayloadBytes - 8 else {
            throw Breakdown(
                description:
                    "cannot be sent a recipe of \(recipe.count) bytes (a frame holds \(HelperFrame.maximumPayloadBytes))"
            )
        }
        let started = MonotonicClock.nanoseconds()
        try send(HelperFrame.startHead(heartbeatNanoseconds: deadline / 8, recipeBytes: recipe.count))
        guard recipe.withUnsafeBytes({ child.write($0) }) else { throw Breakdown(description: "closed its input") }
        // A deep view's recipe carries its orbit, from which the helper builds a table before it
        // answers: 50 ns a byte more (10 million steps, 160 MB, took 3 s at a load of 7; 100 million, 80 s more).
        let building = UInt64(recipe.count) * 50
        let (kind, length) = try readHeader(timeout: max(startupNanoseconds, deadline) + building)
        guard kind == .ready, length == HelperFrame.readyBytes else {
            throw Breakdown(description: "answered its start with a \(kind) frame of \(length) bytes")
        }
        let payload = try readPayload(length)
        let version = UInt32(littleEndian: payload.loadUnaligned(as: UInt32.self))
        guard version == HelperFrame.version else {
            throw Breakdown(description: "speaks protocol \(version), not \(HelperFrame.version)")
        }
        let tableNanoseconds = UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
        // The table was built between the start frame and the answer: no longer than that.
        let handshake = MonotonicClock.nanoseconds() - started
        guard tableNanoseconds <= handshake else {
            throw Breakdown(
                description: "claims \(Double(tableNanoseconds) / 1e9) s building its table in a handshake of "
                    + "\(Double(handshake) / 1e9) s")
        }
        return Double(tableNanoseconds) / 1e9
    }

    deinit { buffer.deallocate() }

    /// The parent's environment without any `SWIFT_BACKTRACE`, read once.
    private static let helperEnvironment: [String] = {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if !text.hasPrefix("SWIFT_BACKTRACE=") { entries.append(text) }
            pointer += 1
        }
        return entries
    }()

    /// The helper's process id.
    var pid: Int32 { child.pid }

    /// The processor time the helper used, once ``kill()`` or ``finish(graceNanoseconds:)`` has reaped it.
    var processorTime: CPUTime { child.processorTime ?? .zero }

    /// The processor time the helper has used so far, while it runs; nil once it is reaped.
    var processorTimeSoFar: CPUTime? { child.processorTimeSoFar }

    /// Asks for tile `index`, whose pixels are `rect`.
    func request(_ index: Int, _ rect: PixelRect) throws(Breakdown) {
        requestTimes[index] = MonotonicClock.nanoseconds()
        try send(HelperFrame.tileRequest(index, rect))
    }

    /// Waits for the helper to finish tile `index`, the oldest it was asked for and has not
    /// answered; `resultBytes` bounds the result (the exact length for pixels, the most for bins).
    func awaitTile(_ index: Int, resultBytes: Int) throws(Breakdown) -> Finished {
        let asked = requestTimes[index] ?? MonotonicClock.nanoseconds()
        var signs: UInt64 = 0
        while true {
            let (kind, length) = try readHeader()
            switch kind {
            case .progress:
                let said = Int(UInt32(littleEndian: try readPayload(4).loadUnaligned(as: UInt32.self)))
                guard said == index else { throw Breakdown(description: "worked on tile \(said), asked for \(index)") }
                // A helper signs at most once a heartbeat (an eighth of the deadline) once it has begun
                // the tile, which it was asked for at `asked`: more is a stranger talking instead of working.
                signs += 1
                let allowed = (MonotonicClock.nanoseconds() - asked) / max(1, deadline / 8) + 2
                guard signs <= allowed else {
                    throw Breakdown(
                        description: "sent \(signs) signs of life for tile \(index), at most \(allowed) due")
                }
            case .done:
                guard length - HelperFrame.doneHeaderBytes <= resultBytes else {
                    throw Breakdown(description: "announced \(length) bytes for a tile of at most \(resultBytes)")
                }
                let payload = try readPayload(length)
                let said = Int(UInt32(littleEndian: payload.loadUnaligned(as: UInt32.self)))
                guard said == index else {
                    throw Breakdown(description: "answered for tile \(said), asked for \(index)")
                }
                requestTimes[index] = nil
                return Finished(
                    index: index,
                    iterations: UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: 4, as: UInt64.self)),
                    start: UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: 12, as: UInt64.self)),
                    end: UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: 20, as: UInt64.self)),
                    result: UnsafeRawBufferPointer(rebasing: payload[HelperFrame.doneHeaderBytes...]))
            case .failed:
                let reason = String(decoding: try readPayload(length), as: UTF8.self)
                throw Breakdown(description: "gave up: \(OneLine.escaped(reason))")
            case .start, .tile, .ready:
                throw Breakdown(description: "sent a \(kind) frame while working")
            }
        }
    }

    /// Kills the helper (SIGKILL), waits for it and says how it ended.
    func kill() -> String {
        child.signal(SIGKILL)
        return ChildProcess.describe(status: child.reap())
    }

    /// Closes the helper's input, which ends it, and waits for it; a helper still there
    /// after `graceNanoseconds` (one that hangs) is killed.
    func finish(graceNanoseconds: UInt64) {
        child.closeInput()
        var scratch: UInt8 = 0
        // The helper closes its output as it exits: its end is the end of the stream.
        while child.read(into: &scratch, count: 1, timeoutNanoseconds: graceNanoseconds) == .complete {}
        child.signal(SIGKILL)
        child.reap()
    }

    private func send(_ frame: [UInt8]) throws(Breakdown) {
        guard frame.withUnsafeBytes({ child.write($0) }) else {
            throw Breakdown(description: "closed its input")
        }
    }

    private func readHeader(timeout: UInt64? = nil) throws(Breakdown) -> (HelperFrame.Kind, Int) {
        let header = try readPayload(HelperFrame.headerBytes, timeout: timeout)
        let code = UInt32(littleEndian: header.loadUnaligned(as: UInt32.self))
        let length = Int(UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        guard let kind = HelperFrame.Kind(rawValue: code) else {
            throw Breakdown(description: "sent a frame of unknown kind \(code)")
        }
        // Before a byte of the payload is read or a byte of memory taken for it.
        guard HelperFrame.allowedLengths(of: kind).contains(length) else {
            throw Breakdown(description: "sent a \(kind) frame of \(length) bytes")
        }
        return (kind, length)
    }

    /// Reads `count` bytes into the buffer; the caller has bounded `count`.
    private func readPayload(_ count: Int, timeout: UInt64? = nil) throws(Breakdown) -> UnsafeRawBufferPointer {
        let timeout = timeout ?? deadline
        if buffer.count < count {
            buffer.deallocate()
            buffer = .allocate(byteCount: count, alignment: 8)
        }
        switch child.read(into: buffer.baseAddress!, count: count, timeoutNanoseconds: timeout) {
        case .complete:
            return UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        case .closed: throw Breakdown(description: "closed its output")
        case .timedOut: throw Breakdown(description: "said nothing for \(Double(timeout) / 1e9) s")
        }
    }
}
