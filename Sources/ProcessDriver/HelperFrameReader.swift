import Platform

/// Why a helper stops before its input ends: what was wrong, and its exit status.
package struct HelperRefusal: Error, CustomStringConvertible {
    package let description: String
    package let status: Int32

    /// Exit 65: a frame it cannot take (malformed, unknown, out of order, out of range, cut short).
    package static let badFrameStatus: Int32 = 65
    /// Exit 71: a frame within the limits whose work needs more memory than the helper can have.
    package static let noMemoryStatus: Int32 = 71

    static func badFrame(_ reason: String) -> Self { Self(description: reason, status: badFrameStatus) }
    static func noMemory(_ reason: String) -> Self { Self(description: reason, status: noMemoryStatus) }
}

/// The frames a helper reads from its parent, each header checked before its payload is read:
/// a kind the helper takes, and a length that kind may have. The payload's memory grows as its
/// bytes arrive, never to the header's word at once: a header that claims 4 GiB and is followed
/// by nothing costs 64 KiB.
final class HelperFrameReader {
    /// What came next.
    enum Next {
        /// A whole frame; its payload is valid until the next read or ``releaseMemory()``.
        case frame(HelperFrame.Kind, UnsafeRawBufferPointer)
        /// The input ended between frames: the parent is done.
        case end
        /// A frame that cannot be taken, or its memory could not be had.
        case refused(HelperRefusal)
    }

    /// Reads up to `count` bytes into the pointer; returns how many, 0 at the end of the input.
    typealias Read = (UnsafeMutableRawPointer, Int) -> Int

    /// The most memory a payload takes before more of its bytes have arrived.
    static let firstChunkBytes = 64 << 10

    private let read: Read
    private var buffer: UnsafeMutableRawPointer?
    private var capacity = 0

    init(read: @escaping Read) { self.read = read }

    /// Reads the next frame, refusing any kind but `kinds`.
    func next(accepting kinds: Set<HelperFrame.Kind>) -> Next {
        var header: (UInt32, UInt32) = (0, 0)
        let got = withUnsafeMutableBytes(of: &header) { fill($0.baseAddress!, count: HelperFrame.headerBytes) }
        if got == 0 { return .end }
        guard got == HelperFrame.headerBytes else {
            return .refused(.badFrame("the input ended inside a frame's header, after \(got) of 8 bytes"))
        }
        let code = UInt32(littleEndian: header.0)
        let length = Int(UInt32(littleEndian: header.1))
        guard let kind = HelperFrame.Kind(rawValue: code) else {
            return .refused(.badFrame("a frame of unknown kind \(code); a parent sends start (1) and tile (3)"))
        }
        guard kinds.contains(kind) else {
            return .refused(.badFrame("a \(kind) frame, which a parent never sends (it sends start and tile)"))
        }
        let allowed = HelperFrame.allowedLengths(of: kind)
        guard allowed.contains(length) else {
            return .refused(
                .badFrame("a \(kind) frame of \(length) bytes; a \(kind) frame has \(Self.describe(allowed)) bytes"))
        }
        var received = 0
        while received < length {
            if received == capacity {
                let wanted = min(length, max(Self.firstChunkBytes, 2 * capacity))
                // realloc: a large block is moved by remapping its pages, not by copying them.
                guard let grown = realloc(buffer, wanted) else {
                    return .refused(.noMemory("no memory for \(wanted) bytes of a \(kind) frame of \(length)"))
                }
                buffer = grown
                capacity = wanted
            }
            received += fill(buffer! + received, count: min(length, capacity) - received)
            if received < min(length, capacity) {
                return .refused(
                    .badFrame("the input ended inside a \(kind) frame, after \(received) of its \(length) bytes"))
            }
        }
        return .frame(kind, UnsafeRawBufferPointer(start: buffer, count: length))
    }

    /// Gives back the memory of a long payload once it has been read (a recipe that carried an orbit).
    func releaseMemory() {
        guard capacity > Self.firstChunkBytes else { return }
        free(buffer)
        buffer = nil
        capacity = 0
    }

    deinit { free(buffer) }

    /// Reads until `count` bytes have come or the input ends; returns how many came.
    private func fill(_ pointer: UnsafeMutableRawPointer, count: Int) -> Int {
        var offset = 0
        while offset < count {
            let got = read(pointer + offset, count - offset)
            if got <= 0 { break }
            offset += got
        }
        return offset
    }

    private static func describe(_ range: ClosedRange<Int>) -> String {
        range.count == 1 ? "exactly \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
    }
}
