import PNGShim

/// The join's check of the zlib stream its parts' chunks make together, inflated as they are
/// copied and thrown away (memory stays a few tens of KiB): each part's chunks must inflate to
/// exactly the rows its header names, with the Adler-32 its footer states, and the whole
/// stream must end with the last part, so that the PNG written is one a checker accepts
/// (docs/parts.md). The parts' CRC-32s say a part is as written; this says it was written
/// whole and true, which matters for a part whose fields were edited and CRCs recomputed.
final class PartStreamCheck {
    private let check: OpaquePointer
    /// The most bytes the whole stream may inflate to: the picture's filtered rows.
    private let total: UInt64
    /// Where the current part's bytes begin, and its Adler-32 so far's starting value.
    private var partStart: UInt64 = 0
    private var adlerBefore: UInt32 = 1

    /// Starts checking the stream of a picture whose filtered rows are `rowBytes` each, `total` bytes in all.
    init(rowBytes: Int, total: UInt64) throws(PartJoinError) {
        guard let check = mandel_stream_check_start(UInt64(rowBytes)) else {
            throw .cannotRead(path: "the parts", reason: "no memory for zlib's state")
        }
        self.check = check
        self.total = total
    }

    deinit { mandel_stream_check_end(check) }

    /// Inflates the next bytes of `part`'s chunks.
    func feed(_ bytes: UnsafeRawBufferPointer, of part: PartJoin.Part) throws(PartJoinError) {
        var message = [CChar](repeating: 0, count: 200)
        let limit = min(total, partStart + part.footer.filteredBytes)
        guard
            mandel_stream_check_feed(
                check, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, limit, &message,
                message.count) == 0
        else { throw .damaged(path: part.path, reason: "its image data is wrong: \(Self.text(message)) (corrupted)") }
    }

    /// Checks that `part`'s chunks, all fed, inflated to its footer's count and Adler-32.
    func endPart(_ part: PartJoin.Part) throws(PartJoinError) {
        let inflated = mandel_stream_check_inflated(check) - partStart
        guard inflated == part.footer.filteredBytes else {
            throw .damaged(
                path: part.path,
                reason: "its chunks inflate to \(inflated) bytes, and its footer says \(part.footer.filteredBytes) "
                    + "(corrupted)")
        }
        let expected = mandel_adler32_combine(adlerBefore, part.footer.adler, Int(part.footer.filteredBytes))
        guard mandel_stream_check_adler(check) == expected else {
            throw .damaged(
                path: part.path, reason: "its image data's Adler-32 is not the one its footer states (corrupted)")
        }
        partStart += inflated
        adlerBefore = expected
    }

    /// Checks that the stream, ended with `adler`, is whole: the last part's last slice ended it.
    func finish(adler: UInt32, lastPart: PartJoin.Part) throws(PartJoinError) {
        var message = [CChar](repeating: 0, count: 200)
        guard mandel_stream_check_finish(check, adler, &message, message.count) == 0 else {
            throw .damaged(path: lastPart.path, reason: "its image data is wrong: \(Self.text(message)) (corrupted)")
        }
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
