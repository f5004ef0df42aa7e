import PNGShim

/// The start of a PNG as a part file carries it: the signature, `IHDR` and `tEXt` chunks, each
/// checked as a PNG checker checks it (docs/parts.md). A part's header has its own CRC-32, but
/// anyone can recompute that one: the head is read as untrusted bytes.
struct PNGHead: Equatable {
    /// Pixels per row and rows.
    let width: Int, height: Int
    /// Bytes of one row as the stream holds it: the filter type and the pixels' bytes.
    let filteredRowBytes: Int
    /// The text chunks, by keyword.
    let texts: [String: String]

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The bit depths and colour types mandel writes (gray 1-bit, gray 8-bit, RGB 8-bit), with their bits per pixel.
    private static let pixelKinds: [(bitDepth: UInt8, colorType: UInt8, bits: Int)] = [
        (1, 0, 1), (8, 0, 8), (8, 2, 24),
    ]

    /// Reads `bytes` as a PNG head, or throws what is wrong with it, in words.
    init(parsing bytes: [UInt8]) throws(Refusal) {
        guard bytes.starts(with: Self.signature) else { throw Refusal("its PNG head lacks the PNG signature") }
        var offset = Self.signature.count
        var chunks: [(type: String, data: ArraySlice<UInt8>)] = []
        while offset < bytes.count {
            guard bytes.count - offset >= 12 else { throw Refusal("its PNG head ends inside a chunk") }
            let length = Int(PartBytes.word(bytes[...], at: offset))
            guard length <= bytes.count - offset - 12 else { throw Refusal("its PNG head ends inside a chunk") }
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw Refusal("its PNG head holds a chunk whose type is not four letters")
            }
            let covered = Array(bytes[(offset + 4)..<(offset + 8 + length)])
            guard mandel_crc32(0, covered, covered.count) == PartBytes.word(bytes[...], at: offset + 8 + length) else {
                throw Refusal("a chunk of its PNG head fails its CRC-32")
            }
            chunks.append((String(decoding: typeBytes, as: UTF8.self), bytes[(offset + 8)..<(offset + 8 + length)]))
            offset += 12 + length
        }
        guard let first = chunks.first, first.type == "IHDR", first.data.count == 13 else {
            throw Refusal("its PNG head does not begin with a 13-byte IHDR chunk")
        }
        let header = first.data
        let (width, height) = (PartBytes.word(header, at: 0), PartBytes.word(header, at: 4))
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
            throw Refusal("its IHDR says \(width)x\(height); a PNG's sides are 1 to 2147483647")
        }
        let (depth, colorType) = (header[header.startIndex + 8], header[header.startIndex + 9])
        guard let kind = Self.pixelKinds.first(where: { $0.bitDepth == depth && $0.colorType == colorType }) else {
            throw Refusal(
                "its IHDR says bit depth \(depth) and colour type \(colorType); mandel writes gray 1-bit, gray 8-bit "
                    + "and RGB 8-bit")
        }
        guard header.suffix(3).allSatisfy({ $0 == 0 }) else {
            throw Refusal("its IHDR asks for another compression, filtering or interlacing than PNG's standard ones")
        }
        var texts: [String: String] = [:]
        for chunk in chunks.dropFirst() {
            guard chunk.type == "tEXt" else {
                throw Refusal(
                    "its PNG head holds a chunk of type '\(chunk.type)'; a part's head holds IHDR and tEXt only")
            }
            guard let (key, text) = Self.text(chunk.data) else {
                throw Refusal("a tEXt chunk of its PNG head has no keyword of 1 to 79 printable characters")
            }
            texts[key] = text
        }
        self.width = Int(width)
        self.height = Int(height)
        filteredRowBytes = (Int(width) * kind.bits + 7) / 8 + 1
        self.texts = texts
    }

    /// A tEXt chunk's keyword and text, or nil when the keyword breaks PNG's rule: 1 to 79 printable Latin-1
    /// characters, no space at either end or two together, then a zero byte, and no zero byte in the text.
    private static func text(_ data: ArraySlice<UInt8>) -> (String, String)? {
        guard let zero = data.firstIndex(of: 0) else { return nil }
        let key = data[..<zero]
        let text = data[(zero + 1)...]
        guard (1...79).contains(key.count), key.first != 0x20, key.last != 0x20,
            key.allSatisfy({ (0x20...0x7E).contains($0) || $0 >= 0xA1 }),
            !zip(key, key.dropFirst()).contains(where: { $0 == 0x20 && $1 == 0x20 }), !text.contains(0)
        else { return nil }
        return (String(decoding: key, as: UTF8.self), String(decoding: text, as: UTF8.self))
    }

    /// What is wrong with a head, in words: the reason of a ``PartJoinError/damaged(path:reason:)``.
    struct Refusal: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
