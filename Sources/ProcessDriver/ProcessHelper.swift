import MandelbrotCore
import Platform

/// The helper side of the `process` strategy: `mandel helper`, started by the parent with
/// pipes for standard input and output. It renders the tiles it is asked for with the
/// same core code as any thread, and leaves when its input ends, whatever became of the
/// parent (and the kernel kills it if the parent's serving thread ends first).
public enum ProcessHelper {
    /// Serves the parent until its input ends; returns the exit status.
    ///
    /// - Parameters:
    ///   - slot, generation: Which helper this is (for ``HelperFaults``).
    ///   - parent: The parent's process id: if the parent is already gone, the helper leaves at once.
    public static func serve(slot: Int, generation: Int, parent: Int32) -> Int32 {
        guard ChildProcess.endWithParent(expectedParent: parent) else { return 0 }
        let faults = HelperFaults(getenv("MANDEL_HELPER_FAULTS").map { String(cString: $0) })
        var recipe: TileRecipe?
        var heartbeat: UInt64 = 0
        var requests = 0
        let workspace = TileRecipe.Workspace()
        var payload: [UInt8] = []
        while true {
            var header = [UInt8](repeating: 0, count: HelperFrame.headerBytes)
            guard readAll(&header, count: header.count) else { return 0 }
            let (kindCode, length) = header.withUnsafeBytes { raw in
                (
                    UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)),
                    Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
                )
            }
            guard let kind = HelperFrame.Kind(rawValue: kindCode), length <= HelperFrame.maximumStartBytes else {
                return fail("a frame of kind \(kindCode) and \(length) bytes")
            }
            if payload.count < length { payload = [UInt8](repeating: 0, count: length) }
            guard readAll(&payload, count: length) else { return 0 }
            switch kind {
            case .start:
                let decoded = payload.withUnsafeBytes { raw in
                    decodeStart(UnsafeRawBufferPointer(rebasing: raw[0..<length]))
                }
                switch decoded {
                case .success(let start): (heartbeat, recipe) = start
                case .failure(let error): return fail("cannot read the recipe: \(error)")
                }
                // The recipe has been copied out (a deep view's orbit into the reference): its bytes
                // would otherwise stay for the helper's life, 16 a step, beside the orbit's own copy.
                payload = []
                requests = 0
                let tableNanoseconds = UInt64((recipe?.tableSeconds ?? 0) * 1e9)
                send(
                    HelperFrame.frame(.ready) { writer in
                        writer.write(HelperFrame.version)
                        writer.write(tableNanoseconds)
                    })
            case .tile:
                guard let recipe, length == 20 else { return fail("a tile request before the recipe, or malformed") }
                let values = payload.withUnsafeBytes { raw in
                    (0..<5).map {
                        Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
                    }
                }
                let index = values[0]
                let rect = PixelRect(x: values[1], y: values[2], width: values[3], height: values[4])
                if let fault = faults.fault(slot: slot, generation: generation, tile: requests) {
                    commit(fault, index: index, rect: rect, recipe: recipe)
                }
                requests += 1
                guard let frame = render(index, rect, recipe: recipe, workspace: workspace, heartbeat: heartbeat) else {
                    return fail("tile \(rect) lies outside the picture")
                }
                send(frame)
            case .ready, .progress, .done, .failed:
                return fail("a \(kind) frame, which only helpers send")
            }
        }
    }

    /// A `start` frame's heartbeat interval and recipe.
    private static func decodeStart(
        _ bytes: UnsafeRawBufferPointer
    ) -> Result<(UInt64, TileRecipe), WireReader.Malformed> {
        var reader = WireReader(bytes)
        do {
            let heartbeat = try reader.read(UInt64.self)
            return .success((heartbeat, try TileRecipe(decoding: try reader.readBytes(reader.remaining))))
        } catch {
            return .failure(error)
        }
    }

    /// The `done` frame of a tile, sending `progress` frames while it renders; nil if the tile is out of range.
    private static func render(
        _ index: Int, _ rect: PixelRect, recipe: TileRecipe, workspace: TileRecipe.Workspace, heartbeat: UInt64
    ) -> [UInt8]? {
        var writer = WireWriter(
            capacity: HelperFrame.headerBytes + HelperFrame.doneHeaderBytes + recipe.resultBytes(for: rect))
        writer.write(HelperFrame.Kind.done.rawValue)
        writer.write(UInt32(0))  // the length, filled in below
        writer.write(UInt32(index))
        writer.write(UInt64(0))  // iterations, start, end: below
        writer.write(UInt64(0))
        writer.write(UInt64(0))
        let start = MonotonicClock.nanoseconds()
        var lastSign = start
        let progress = HelperFrame.frame(.progress) { $0.write(UInt32(index)) }
        guard
            let iterations = try? recipe.render(
                rect, appendingTo: &writer, workspace: workspace,
                proceed: {
                    let now = MonotonicClock.nanoseconds()
                    if now - lastSign >= heartbeat {
                        send(progress)
                        lastSign = now
                    }
                    return true
                })
        else { return nil }
        let end = MonotonicClock.nanoseconds()
        var frame = writer.bytes
        let length = UInt32(frame.count - HelperFrame.headerBytes)
        frame.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: length.littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(of: iterations.littleEndian, toByteOffset: 12, as: UInt64.self)
            raw.storeBytes(of: start.littleEndian, toByteOffset: 20, as: UInt64.self)
            raw.storeBytes(of: end.littleEndian, toByteOffset: 28, as: UInt64.self)
        }
        return frame
    }

    /// Does what a fault says; returns only for a fault that goes on serving.
    private static func commit(_ fault: HelperFaults.Kind, index: Int, rect: PixelRect, recipe: TileRecipe) {
        switch fault {
        case .trap: fatalError("helper fault injected: trap at tile \(index)")
        case .segv: raise(SIGSEGV)
        case .exit: exit(3)
        case .hang: hang()
        case .garbage:
            send([UInt8](repeating: 0xA5, count: 64))
            hang()
        case .short:
            let length = HelperFrame.doneHeaderBytes + recipe.resultBytes(for: rect)
            var writer = WireWriter()
            writer.write(HelperFrame.Kind.done.rawValue)
            writer.write(UInt32(length))
            send(writer.bytes + [UInt8](repeating: 0, count: length / 2))
            hang()
        case .foreign:
            send(HelperFrame.frame(.progress) { $0.write(UInt32(index + 1_000_003)) })
            hang()
        case .oversize:
            var writer = WireWriter()
            writer.write(HelperFrame.Kind.done.rawValue)
            writer.write(UInt32.max)
            send(writer.bytes)
            hang()
        }
    }

    /// Sleeps for ever, reading nothing: the parent's deadline, or its death, ends the helper.
    private static func hang() -> Never {
        while true { sleep(1000) }
    }

    /// Reports why the helper stops, and returns its exit status.
    private static func fail(_ reason: String) -> Int32 {
        send(
            HelperFrame.frame(.failed) { writer in
                Array(reason.utf8.prefix(HelperFrame.maximumFailureBytes)).withUnsafeBytes { writer.append($0) }
            })
        return 2
    }

    private static func readAll(_ buffer: inout [UInt8], count: Int) -> Bool {
        var offset = 0
        return buffer.withUnsafeMutableBytes { raw in
            while offset < count {
                let got = read(0, raw.baseAddress! + offset, count - offset)
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { return false }
                offset += got
            }
            return true
        }
    }

    private static func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(1, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                // The parent has gone: nothing to do but leave.
                if written <= 0 { exit(0) }
                offset += written
            }
        }
    }
}
