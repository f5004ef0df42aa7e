/// A 64-bit FNV-1a hash of pixel bytes, eight bytes at a time, fed in pieces.
///
/// Feeding an image band by band gives the same value as ``PixelBuffer/checksum``
/// of the whole image: bytes are hashed as one stream, whatever the cuts.
public struct PixelChecksum: Sendable {
    private static let prime: UInt64 = 0x0000_0100_0000_01b3
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    /// Bytes of an unfinished word, lowest first.
    private var pending: UInt64 = 0
    private var pendingCount = 0

    /// An empty checksum.
    public init() {}

    /// Adds the next bytes of the stream.
    public mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        // Complete a word left over from the last piece.
        while pendingCount > 0 && pendingCount < 8 && index < bytes.count {
            pending |= UInt64(bytes[index]) << (8 * UInt64(pendingCount))
            pendingCount += 1
            index += 1
        }
        if pendingCount == 8 {
            hash = (hash ^ pending) &* Self.prime
            pending = 0
            pendingCount = 0
        }
        let raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[index...])
        let words = raw.count / 8
        for word in 0..<words {
            hash =
                (hash ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self)))
                &* Self.prime
        }
        for byte in raw[(words * 8)...] {
            pending |= UInt64(byte) << (8 * UInt64(pendingCount))
            pendingCount += 1
        }
    }

    /// The hash of everything added: whole words, then any last bytes one by one.
    public var value: UInt64 {
        var hash = self.hash
        for byte in 0..<pendingCount {
            hash = (hash ^ ((pending >> (8 * UInt64(byte))) & 0xff)) &* Self.prime
        }
        return hash
    }
}
