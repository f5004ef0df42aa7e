import MandelbrotCore

/// The messages between mandel and its helper processes: frames over a pair of pipes.
///
/// A frame is an 8-byte header (the kind, then the payload's length, both little-endian
/// `UInt32`s) and its payload. The parent sends `start` once (the heartbeat interval and
/// the pass's ``TileRecipe``, with a deep view's reference orbit), then `tile` requests; the
/// helper answers `start` with `ready`, and each `tile`, in the order asked, with `progress`
/// frames while it renders
/// (at least once per heartbeat interval) and one `done` frame with the tile's result.
/// The helper leaves when its input ends.
///
/// Each side reads the other as a stranger (a replaced binary, a corrupted pipe): a header's
/// kind and length are checked against what that kind may be (``allowedLengths(of:)``) before
/// its payload is read, a payload's memory is taken as its bytes arrive (never from the header's
/// word alone), and every number in it is checked against the recipe and ``ValueLimits``.
enum HelperFrame {
    /// The kinds of frame.
    enum Kind: UInt32 {
        /// Parent → helper: `UInt64` heartbeat nanoseconds, then the recipe.
        case start = 1
        /// Helper → parent: the protocol version it speaks (`UInt32`), then the nanoseconds it spent
        /// building a deep view's table from the recipe's orbit (`UInt64`, 0 without one).
        case ready = 2
        /// Parent → helper: `UInt32` tile index, then its rectangle as four `UInt32`s (x, y, width, height).
        case tile = 3
        /// Helper → parent: `UInt32` index of the tile under way.
        case progress = 4
        /// Helper → parent: `UInt32` index, `UInt64` iterations, start and end nanoseconds, then the result.
        case done = 5
        /// Helper → parent: why the helper cannot go on, in UTF-8; the helper then leaves.
        case failed = 6
    }

    /// The version of this protocol; a helper that answers another is refused.
    static let version: UInt32 = 2
    static let headerBytes = 8
    /// The bytes of a `ready` frame's payload.
    static let readyBytes = 4 + 8
    /// The bytes of a `tile` frame's payload.
    static let tileBytes = 5 * 4
    /// The bytes of a `progress` frame's payload.
    static let progressBytes = 4
    /// The bytes of a `done` frame before the result.
    static let doneHeaderBytes = 4 + 8 + 8 + 8
    /// The longest payload any frame may have: what the length field holds. The longest recipe the
    /// limits allow (a grid 2^28 samples wide, 2 GiB of real parts, and an orbit of 10^8 steps,
    /// 1.6 GB) is 3.8 GB; the longest tile result (a tile of the largest picture kept in memory) too.
    static let maximumPayloadBytes = Int(UInt32.max)
    /// The longest `failed` frame a parent reads.
    static let maximumFailureBytes = 4096
    /// The heartbeat intervals a helper accepts, in nanoseconds: an eighth of the shortest and the
    /// longest deadline the parent allows (``ProcessStrategy/deadlineSeconds``).
    static let heartbeatNanoseconds: ClosedRange<UInt64> =
        heartbeat(
            deadlineSeconds: ProcessStrategy.deadlineSeconds.lowerBound)...heartbeat(
            deadlineSeconds: ProcessStrategy.deadlineSeconds.upperBound)

    /// The heartbeat interval for a deadline: an eighth of it.
    static func heartbeat(deadlineSeconds: Double) -> UInt64 { UInt64(deadlineSeconds * 1e9) / 8 }

    /// The payload lengths a frame of `kind` may have: exactly its size for the fixed ones.
    static func allowedLengths(of kind: Kind) -> ClosedRange<Int> {
        switch kind {
        case .start: 8...maximumPayloadBytes
        case .ready: readyBytes...readyBytes
        case .tile: tileBytes...tileBytes
        case .progress: progressBytes...progressBytes
        case .done: doneHeaderBytes...maximumPayloadBytes
        case .failed: 0...maximumFailureBytes
        }
    }

    /// A whole frame: its header and `payload`.
    static func frame(_ kind: Kind, _ payload: (inout WireWriter) -> Void) -> [UInt8] {
        var body = WireWriter()
        payload(&body)
        var writer = WireWriter(capacity: headerBytes + body.bytes.count)
        writer.write(kind.rawValue)
        writer.write(UInt32(body.bytes.count))
        body.bytes.withUnsafeBytes { writer.append($0) }
        return writer.bytes
    }

    /// The bytes of a `start` frame before its recipe: the header and the heartbeat interval.
    /// The recipe follows as it is, written from the pass's one copy (a deep view's is its orbit,
    /// 16 bytes a step), never copied into a frame of its own.
    static func startHead(heartbeatNanoseconds: UInt64, recipeBytes: Int) -> [UInt8] {
        var writer = WireWriter(capacity: headerBytes + 8)
        writer.write(Kind.start.rawValue)
        writer.write(UInt32(8 + recipeBytes))
        writer.write(heartbeatNanoseconds)
        return writer.bytes
    }

    /// A `tile` request.
    static func tileRequest(_ index: Int, _ rect: PixelRect) -> [UInt8] {
        frame(.tile) { writer in
            for value in [index, rect.x, rect.y, rect.width, rect.height] { writer.write(UInt32(value)) }
        }
    }
}
