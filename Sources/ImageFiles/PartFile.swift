import PNGShim

/// A part file's header: what the join checks and the start of the PNG it writes (docs/parts.md).
///
/// Layout, integers big-endian: the magic `8B 4D 50 41 52 54 0D 0A` (`\x8BMPART\r\n`), the
/// version (u32), the length of the PNG head (u32) and the head itself (the PNG's signature,
/// `IHDR` and `tEXt` chunks, which state what determines the pixels), zlib's level and strategy
/// (u8 each), two zero bytes, rows per slice, slices, parts (N), this part (K), its first slice
/// and the slice after its last (u32 each), and the CRC-32 of everything before it.
public struct PartHeader: Sendable, Equatable {
    /// The first bytes of every part file.
    public static let magic: [UInt8] = [0x8B, 0x4D, 0x50, 0x41, 0x52, 0x54, 0x0D, 0x0A]
    /// The format this code writes and reads.
    public static let version: UInt32 = 1
    /// The longest PNG head a reader accepts: far more than mandel's few text chunks.
    public static let maximumHeadBytes = 1 << 16

    /// The PNG's signature, header and text chunks, which the join writes first.
    public var pngHead: [UInt8]
    /// zlib's level and strategy.
    public var level: UInt8, strategy: UInt8
    /// Rows per slice, and slices in the picture.
    public var sliceRows: UInt32, sliceCount: UInt32
    /// How many parts the picture was cut into (N), and which this is (K, from 0).
    public var partCount: UInt32, partIndex: UInt32
    /// The slices this part holds.
    public var firstSlice: UInt32, endSlice: UInt32

    /// Creates a header.
    public init(
        pngHead: [UInt8], level: UInt8, strategy: UInt8, sliceRows: UInt32, sliceCount: UInt32, partCount: UInt32,
        partIndex: UInt32, firstSlice: UInt32, endSlice: UInt32
    ) {
        self.pngHead = pngHead
        self.level = level
        self.strategy = strategy
        self.sliceRows = sliceRows
        self.sliceCount = sliceCount
        self.partCount = partCount
        self.partIndex = partIndex
        self.firstSlice = firstSlice
        self.endSlice = endSlice
    }

    /// The header's bytes, ending with their CRC-32.
    public var bytes: [UInt8] {
        var out = Self.magic + PartBytes.word(Self.version) + PartBytes.word(UInt32(pngHead.count)) + pngHead
        out += [level, strategy, 0, 0]
        for value in [sliceRows, sliceCount, partCount, partIndex, firstSlice, endSlice] {
            out += PartBytes.word(value)
        }
        return out + PartBytes.word(mandel_crc32(0, out, out.count))
    }

    /// Whether `other` is a part of the same picture: the same head, compression and slices.
    public func isSamePicture(as other: PartHeader) -> Bool {
        pngHead == other.pngHead && level == other.level && strategy == other.strategy && sliceRows == other.sliceRows
            && sliceCount == other.sliceCount
    }

    /// The bytes after the head: 4 of compression, 24 of slices and parts, 4 of CRC.
    static let fixedTailBytes = 32
}

/// A part file's footer, after its IDAT chunks: their length, the Adler-32 of the filtered
/// rows they hold and how many bytes those were (the join combines them into the stream's
/// Adler-32), and a CRC-32 over the header's CRC and these fields, so that a footer from
/// another part is refused.
///
/// Layout: `MPARTEND`, body bytes (u64), filtered bytes (u64), Adler-32 (u32), CRC-32 (u32).
public struct PartFooter: Sendable, Equatable {
    /// The footer's first bytes.
    public static let magic: [UInt8] = Array("MPARTEND".utf8)
    /// Its length.
    public static let size = 32

    /// Bytes of IDAT chunks between the header and the footer.
    public var bodyBytes: UInt64
    /// Filtered row bytes the chunks inflate to.
    public var filteredBytes: UInt64
    /// Their Adler-32.
    public var adler: UInt32

    /// Creates a footer.
    public init(bodyBytes: UInt64, filteredBytes: UInt64, adler: UInt32) {
        self.bodyBytes = bodyBytes
        self.filteredBytes = filteredBytes
        self.adler = adler
    }

    /// The footer's bytes for a part whose header's CRC-32 is `headerCRC`.
    public func bytes(headerCRC: UInt32) -> [UInt8] {
        let fields = PartBytes.long(bodyBytes) + PartBytes.long(filteredBytes) + PartBytes.word(adler)
        let covered = PartBytes.word(headerCRC) + fields
        return Self.magic + fields + PartBytes.word(mandel_crc32(0, covered, covered.count))
    }
}

/// Big-endian integers in and out of bytes.
enum PartBytes {
    static func word(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func long(_ value: UInt64) -> [UInt8] { word(UInt32(value >> 32)) + word(UInt32(value & 0xFFFF_FFFF)) }

    static func word(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32 {
        let start = bytes.startIndex + offset
        return bytes[start..<start + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func long(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt64 {
        UInt64(word(bytes, at: offset)) << 32 | UInt64(word(bytes, at: offset + 4))
    }
}
