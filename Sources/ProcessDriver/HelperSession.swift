import MandelbrotCore
import Platform

/// A helper's side of the conversation: frames in from the parent, frames out, until the input
/// ends or a frame is refused. ``ProcessHelper`` runs one over its standard input and output; a
/// fuzzer runs many in one process over bytes in memory.
///
/// Nothing from the wire is trusted: each frame's kind and length are checked before its payload
/// is read (``HelperFrameReader``), the recipe's fields against the command line's limits, and a
/// tile's rectangle against the recipe's picture, its result against the longest frame and its
/// memory against what the process can have, before anything is allocated for it.
package struct HelperSession {
    /// How a session ended.
    package enum Ending: Equatable {
        /// The input ended between frames.
        case inputEnded
        /// The parent stopped reading (it has gone).
        case outputClosed
        /// `keepGoing` said stop in the middle of a tile.
        case stopped
        /// A frame was refused, after a `failed` frame saying why.
        case refused(String, status: Int32)

        /// The helper's exit status.
        package var status: Int32 {
            if case .refused(_, let status) = self { status } else { 0 }
        }
    }

    /// Writes all the bytes to the parent; false once it has stopped reading.
    package typealias Write = (UnsafeRawBufferPointer) -> Bool

    private let reader: HelperFrameReader
    private let write: Write
    private let faults: HelperFaults
    private let slot: Int
    private let generation: Int
    private let memoryAvailable: () -> Int?
    private let keepGoing: () -> Bool

    /// A session over `read` and `write`.
    ///
    /// - Parameters:
    ///   - faults: The deliberate failures to commit (``HelperFaults``), for tests.
    ///   - memoryAvailable: The bytes this process can still have (nil: no limit known).
    ///   - keepGoing: Asked while a tile renders; false stops the session (a fuzzer's time limit).
    package init(
        read: @escaping (UnsafeMutableRawPointer, Int) -> Int, write: @escaping Write, faults: String? = nil,
        slot: Int = 0, generation: Int = 0, memoryAvailable: @escaping () -> Int? = ResourceLimits.memoryAvailable,
        keepGoing: @escaping () -> Bool = { true }
    ) {
        reader = HelperFrameReader(read: read)
        self.write = write
        self.faults = HelperFaults(faults)
        self.slot = slot
        self.generation = generation
        self.memoryAvailable = memoryAvailable
        self.keepGoing = keepGoing
    }

    /// Serves frames until the input ends or one is refused.
    package func run() -> Ending {
        var recipe: TileRecipe?
        var heartbeat: UInt64 = 0
        var requests = 0
        var room: MemoryReading?
        let workspace = TileRecipe.Workspace()
        while true {
            switch reader.next(accepting: [.start, .tile]) {
            case .end: return .inputEnded
            case .refused(let refusal): return refuse(refusal)
            case .frame(.start, let payload):
                switch Self.decodeStart(payload) {
                case .success(let start): (heartbeat, recipe) = start
                case .failure(let refusal): return refuse(refusal)
                }
                // The recipe has been copied out (a deep view's orbit into the reference): its bytes
                // would otherwise stay for the helper's life, 16 a step, beside the orbit's own copy.
                reader.releaseMemory()
                requests = 0
                let tableNanoseconds = UInt64((recipe?.tableSeconds ?? 0) * 1e9)
                let ready = HelperFrame.frame(.ready) { writer in
                    writer.write(HelperFrame.version)
                    writer.write(tableNanoseconds)
                }
                guard send(ready) else { return .outputClosed }
            case .frame(_, let payload):
                guard let recipe else { return refuse(.badFrame("a tile request before any recipe")) }
                let (index, rect) = Self.decodeTile(payload)
                if let refusal = check(rect, of: recipe, workspace: workspace, room: &room) { return refuse(refusal) }
                let fault = faults.fault(slot: slot, generation: generation, tile: requests)
                if let fault { commit(fault, index: index, rect: rect, recipe: recipe) }
                requests += 1
                let tile = TileRender(index: index, rect: rect, recipe: recipe, heartbeat: heartbeat)
                switch tile.run(workspace: workspace, send: send, keepGoing: keepGoing) {
                case .done(var frame):
                    if let fault { Self.lie(fault, in: &frame) }
                    guard send(frame) else { return .outputClosed }
                case .stopped: return .stopped
                case .outputClosed: return .outputClosed
                case .failed(let refusal): return refuse(refusal)
                }
            }
        }
    }

    /// The memory this process could still have, as last read, and when.
    private struct MemoryReading {
        /// Bytes (`Int.max` where no limit is known).
        let bytes: Int
        let nanoseconds: UInt64

        /// Whether a tile needing `needed` bytes may go by this reading instead of a new one: it needs
        /// under a sixteenth of what was there, and the reading is under a second old.
        func covers(_ needed: Int, at now: UInt64) -> Bool {
            needed <= bytes / 16 && now &- nanoseconds < 1_000_000_000
        }
    }

    /// Why `rect` cannot be rendered from `recipe` here, checked before anything is allocated for it.
    /// Reading the room left (`/proc` and the cgroup's files) cost more than a small tile's pixels
    /// (6% of a 16-helper render's processor time): a tile that needs little beside the last
    /// reading (`room`) is not read again.
    private func check(
        _ rect: PixelRect, of recipe: TileRecipe, workspace: TileRecipe.Workspace, room: inout MemoryReading?
    ) -> HelperRefusal? {
        do {
            try recipe.checkInside(rect)
        } catch {
            return .badFrame(error.description)
        }
        let resultBytes = recipe.resultBytes(for: rect)
        let longest = HelperFrame.maximumPayloadBytes - HelperFrame.doneHeaderBytes
        guard resultBytes <= longest else {
            return .badFrame("tile \(rect)'s result of \(resultBytes) bytes is longer than a frame holds (\(longest))")
        }
        let needed = recipe.bytesNeeded(for: rect, workspace: workspace)
        let now = MonotonicClock.nanoseconds()
        if let room, room.covers(needed, at: now) { return nil }
        let available = memoryAvailable()
        room = MemoryReading(bytes: available ?? .max, nanoseconds: now)
        if let available, needed > available {
            return .noMemory("tile \(rect) needs \(needed) bytes, and this process can have \(available) more")
        }
        return nil
    }

    /// A `start` frame's heartbeat interval and recipe.
    private static func decodeStart(_ bytes: UnsafeRawBufferPointer) -> Result<(UInt64, TileRecipe), HelperRefusal> {
        var reader = WireReader(bytes)
        do {
            let heartbeat = try reader.read(UInt64.self)
            guard HelperFrame.heartbeatNanoseconds.contains(heartbeat) else {
                return .failure(
                    .badFrame(
                        "a heartbeat of \(heartbeat) ns; a parent asks for \(HelperFrame.heartbeatNanoseconds) ns"))
            }
            return .success((heartbeat, try TileRecipe(decoding: try reader.readBytes(reader.remaining))))
        } catch {
            return .failure(.badFrame("cannot read the recipe: \(error)"))
        }
    }

    /// A `tile` frame's index and rectangle (its length was checked: five `UInt32`s).
    private static func decodeTile(_ bytes: UnsafeRawBufferPointer) -> (Int, PixelRect) {
        let values = (0..<5).map {
            Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
        }
        return (values[0], PixelRect(x: values[1], y: values[2], width: values[3], height: values[4]))
    }

    /// Says why the helper stops, in a `failed` frame, and ends the session.
    private func refuse(_ refusal: HelperRefusal) -> Ending {
        let reason = Array(refusal.description.utf8.prefix(HelperFrame.maximumFailureBytes))
        _ = send(HelperFrame.frame(.failed) { writer in reason.withUnsafeBytes { writer.append($0) } })
        return .refused(refusal.description, status: refusal.status)
    }

    private func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Does what a fault says; returns only for a fault that goes on serving.
    private func commit(_ fault: HelperFaults.Kind, index: Int, rect: PixelRect, recipe: TileRecipe) {
        switch fault {
        case .trap: fatalError("helper fault injected: trap at tile \(index)")
        case .segv: raise(SIGSEGV)
        case .exit: exit(3)
        case .hang: Self.hang()
        case .garbage:
            _ = send([UInt8](repeating: 0xA5, count: 64))
            Self.hang()
        case .short:
            let length = HelperFrame.doneHeaderBytes + recipe.resultBytes(for: rect)
            var writer = WireWriter()
            writer.write(HelperFrame.Kind.done.rawValue)
            writer.write(UInt32(length))
            _ = send(writer.bytes + [UInt8](repeating: 0, count: length / 2))
            Self.hang()
        case .foreign:
            _ = send(HelperFrame.frame(.progress) { $0.write(UInt32(index + 1_000_003)) })
            Self.hang()
        case .oversize:
            var writer = WireWriter()
            writer.write(HelperFrame.Kind.done.rawValue)
            writer.write(UInt32.max)
            _ = send(writer.bytes)
            Self.hang()
        case .overcount, .future:
            // Rendered as any tile, then its answer lies (``lie(_:in:)``).
            break
        }
    }

    /// Makes a well-formed answer lie, as a fault says: what the parent's check of each result
    /// (``RenderWork/finishTile(_:result:iterations:start:end:)``) must refuse. The done frame's
    /// iterations lie at byte 12, its end at 28 (``TileRender``).
    private static func lie(_ fault: HelperFaults.Kind, in frame: inout [UInt8]) {
        frame.withUnsafeMutableBytes { raw in
            switch fault {
            case .overcount: raw.storeBytes(of: (UInt64.max / 2).littleEndian, toByteOffset: 12, as: UInt64.self)
            case .future:
                let later = MonotonicClock.nanoseconds() + 10_000_000_000
                raw.storeBytes(of: later.littleEndian, toByteOffset: 28, as: UInt64.self)
            default: break
            }
        }
    }

    /// Sleeps for ever, reading nothing: the parent's deadline, or its death, ends the helper.
    private static func hang() -> Never {
        while true { sleep(1000) }
    }
}
