import MandelbrotCore
import Platform

/// One tile a helper renders: its `done` frame, with `progress` frames sent while it renders.
struct TileRender {
    /// How the render ended.
    enum Outcome {
        /// The tile's whole `done` frame.
        case done([UInt8])
        /// `keepGoing` said stop.
        case stopped
        /// A `progress` frame could not be sent: the parent has gone.
        case outputClosed
        /// The tile's memory could not be had.
        case failed(HelperRefusal)
    }

    let index: Int
    /// Inside the recipe's picture, its result short enough for a frame (checked by the session).
    let rect: PixelRect
    let recipe: TileRecipe
    let heartbeat: UInt64

    func run(
        workspace: TileRecipe.Workspace, send: ([UInt8]) -> Bool, keepGoing: () -> Bool
    ) -> Outcome {
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
        var closed = false
        let progress = HelperFrame.frame(.progress) { $0.write(UInt32(index)) }
        let rendered: UInt64?
        do {
            rendered = try recipe.render(
                rect, appendingTo: &writer, workspace: workspace,
                proceed: {
                    let now = MonotonicClock.nanoseconds()
                    if now - lastSign >= heartbeat {
                        guard send(progress) else {
                            closed = true
                            return false
                        }
                        lastSign = now
                    }
                    return keepGoing()
                })
        } catch {
            return .failed(.noMemory("tile \(rect): \(error)"))
        }
        guard let iterations = rendered else { return closed ? .outputClosed : .stopped }
        let end = MonotonicClock.nanoseconds()
        var frame = writer.bytes
        // At most HelperFrame.maximumPayloadBytes, which the session checked before the render.
        let length = UInt32(frame.count - HelperFrame.headerBytes)
        frame.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: length.littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(of: iterations.littleEndian, toByteOffset: 12, as: UInt64.self)
            raw.storeBytes(of: start.littleEndian, toByteOffset: 20, as: UInt64.self)
            raw.storeBytes(of: end.littleEndian, toByteOffset: 28, as: UInt64.self)
        }
        return .done(frame)
    }
}
