import ImageFiles

/// Damaged and forged sets of part files for a join, from a seed: the classes `scripts/fuzz-parts`
/// makes, for the join in process (``PartFuzzTests``). Of every set of ``PartFuzzSources/count``
/// parts, one is changed (or, for a consistent forgery, every one):
///
/// - damage (3 in 10): truncated at a random length, bits flipped, a run of bytes zeroed, bytes
///   appended, random bytes, a header or footer swapped with another part's, a part of another
///   picture, another compression or another N;
/// - forgery (6 in 10, structure-aware, ``ForgedPart``): one field of the header, the PNG head's
///   IHDR or the footer set to a boundary value (0, 1, max, max − 1, 2^31, 2^63, one off the true
///   value, random) with every CRC-32 recomputed, so that the edit reaches the checks past the
///   CRCs; or the cut (S, N, K and the slices K of N has) set consistently; or the version, the
///   head's stated length, a byte of the head, or a bit of a chunk's data with its CRC recomputed;
/// - the same IHDR field forged in every part (1 in 10): only the cross-checks against the rows
///   and the stream can tell.
///
/// Input `i` of seed `s` depends on nothing else, so any one input can be made again.
struct PartFuzzer {
    /// One input: the files to join and how.
    struct Input {
        /// The files' contents, `part-0` … `part-3` by name.
        let files: [[UInt8]]
        /// The order in which their names are given to the join.
        let order: [Int]
        /// Whether the join writes to a stream (as to standard output) rather than to a file.
        let toStream: Bool
        /// Whether a chunk's data was forged, its CRC recomputed: rows that keep their Adler-32
        /// then join into a valid PNG of other pixels, which nothing short of rendering again can tell.
        let forgesImageData: Bool
        /// What was done, in words.
        let what: String
    }

    let seed: UInt64
    let sources: PartFuzzSources

    func input(_ index: Int) -> Input {
        var maker = Maker(
            random: SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index)), sources: sources)
        return maker.make()
    }

    /// The IHDR's fields: name, offset in its data, bytes.
    static let ihdrFields: [(name: String, offset: Int, size: Int)] = [
        ("width", 0, 4), ("height", 4, 4), ("bit depth", 8, 1), ("colour type", 9, 1), ("compression", 10, 1),
        ("filter", 11, 1), ("interlace", 12, 1),
    ]

    private struct Maker {
        var random: SeededRandom
        let sources: PartFuzzSources
        var forgesImageData = false

        mutating func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

        mutating func make() -> Input {
            let parts = sources.parts
            let index = below(parts.count)
            var files = parts
            var what: String
            switch below(10) {
            case 0..<3:
                (files[index], what) = damage(index)
                what = "part \(index): " + what
            case 3..<9:
                var forged = ForgedPart(parts[index])
                what = "part \(index): " + forge(&forged)
                files[index] = forged.bytes
            default:
                let field = pick(PartFuzzer.ihdrFields)
                let value = boundary(bits: 8 * field.size, true: ihdr(ForgedPart(parts[0]).header.pngHead, field))
                files = parts.map { part in
                    var forged = ForgedPart(part)
                    forged.setIHDRField(field.offset, size: field.size, to: value)
                    return forged.bytes
                }
                what = "every part: IHDR \(field.name) = \(value)"
            }
            var order = Array(parts.indices)
            for at in order.indices.reversed() { order.swapAt(at, below(at + 1)) }
            let toStream = below(2) == 0
            return Input(
                files: files, order: order, toStream: toStream, forgesImageData: forgesImageData,
                what: what + (toStream ? ", to a stream" : ""))
        }

        /// A value at an end of a field of `bits` bits, one off its true value, or random.
        mutating func boundary(bits: Int, true value: UInt64) -> UInt64 {
            let top = bits == 64 ? UInt64.max : (1 << UInt64(bits)) - 1
            var values: [UInt64] = [
                0, 1, top, top - 1, 1 << UInt64(bits - 1), (1 << UInt64(bits - 1)) - 1, (value &+ 1) & top,
                (value &- 1) & top, random.next() & top,
            ]
            if bits == 64 { values += [1 << 32, (1 << 32) - 1, top - 32] }
            return pick(values)
        }

        mutating func boundary32(_ value: UInt32) -> UInt32 { UInt32(boundary(bits: 32, true: UInt64(value))) }

        /// An IHDR field of a PNG head, as it is.
        func ihdr(_ head: [UInt8], _ field: (name: String, offset: Int, size: Int)) -> UInt64 {
            // The IHDR's data starts after the signature and the chunk's length and type.
            head[(16 + field.offset)..<(16 + field.offset + field.size)].reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// One structure-aware edit of `part`, its CRCs recomputed; says which.
        mutating func forge(_ part: inout ForgedPart) -> String {
            switch pick(["header", "header", "footer", "ihdr", "cut", "version", "head length", "chunk", "head byte"]) {
            case "header":
                let names = ["slice rows", "slices", "parts", "part", "first slice", "end slice"]
                let keyPaths: [WritableKeyPath<PartHeader, UInt32>] = [
                    \.sliceRows, \.sliceCount, \.partCount, \.partIndex, \.firstSlice, \.endSlice,
                ]
                let field = below(names.count)
                part.header[keyPath: keyPaths[field]] = boundary32(part.header[keyPath: keyPaths[field]])
                return "\(names[field]) = \(part.header[keyPath: keyPaths[field]])"
            case "footer":
                switch below(3) {
                case 0:
                    part.footer.bodyBytes = boundary(bits: 64, true: part.footer.bodyBytes)
                    return "body bytes = \(part.footer.bodyBytes)"
                case 1:
                    part.footer.filteredBytes = boundary(bits: 64, true: part.footer.filteredBytes)
                    return "filtered bytes = \(part.footer.filteredBytes)"
                default:
                    part.footer.adler = boundary32(part.footer.adler)
                    return "adler = \(part.footer.adler)"
                }
            case "ihdr":
                let field = pick(PartFuzzer.ihdrFields)
                let value = boundary(bits: 8 * field.size, true: ihdr(part.header.pngHead, field))
                part.setIHDRField(field.offset, size: field.size, to: value)
                return "IHDR \(field.name) = \(value)"
            case "cut":
                let slices = boundary32(part.header.sliceCount)
                let count = pick([slices, boundary32(part.header.partCount)])
                let index = pick([0, 1, max(count, 1) - 1, max(count, 2) - 2, UInt32(below(Int(max(count, 1))))])
                part.cut(slices: slices, parts: count, index: index)
                return "cut S = \(slices), N = \(count), K = \(index)"
            case "version":
                part.statedVersion = boundary32(PartHeader.version)
                return "version = \(part.statedVersion!)"
            case "head length":
                part.statedHeadBytes = boundary32(UInt32(part.header.pngHead.count))
                return "head length = \(part.statedHeadBytes!)"
            case "chunk":
                let chunk = below(part.chunks.count)
                let length = part.chunks[chunk].count - 12
                let at = length > 0 ? below(length) : 0
                let bit = UInt8(1 << below(8))
                part.editChunk(chunk) { if !$0.isEmpty { $0[at] ^= bit } }
                forgesImageData = true
                return "chunk \(chunk): a bit of byte \(at) flipped, its CRC recomputed"
            default:
                // Only the header's CRC (and the footer's, which covers it) recomputed: the head's own
                // chunk CRCs stay as they were.
                let at = below(part.header.pngHead.count)
                part.header.pngHead[at] = UInt8(below(256))
                return "head byte \(at) = \(part.header.pngHead[at])"
            }
        }

        /// One damaged version of part `index`; says what was done.
        mutating func damage(_ index: Int) -> ([UInt8], String) {
            let part = sources.parts[index]
            var data = part
            switch below(9) {
            case 0:
                let cut = below(part.count)
                return (Array(part.prefix(cut)), "truncated to \(cut) of \(part.count) bytes")
            case let kind where kind == 1 || kind == 2:
                var flipped: [Int] = []
                for _ in 0..<(kind == 1 ? 1 : 2 + below(7)) {
                    let at = below(data.count)
                    data[at] ^= UInt8(1 << below(8))
                    flipped.append(at)
                }
                return (data, "bits flipped at \(flipped)")
            case 3:
                let other = sources.parts[(index + 1 + below(sources.parts.count - 1)) % sources.parts.count]
                return (
                    Array(other.prefix(Self.headerBytes(other)) + part.dropFirst(Self.headerBytes(part))),
                    "the header of another part"
                )
            case 4:
                let others = sources.parts.indices.filter { $0 != index }.map { sources.parts[$0] } + sources.others
                return (
                    Array(part.dropLast(PartFooter.size) + pick(others).suffix(PartFooter.size)),
                    "another part's footer"
                )
            case 5:
                let other = below(sources.others.count)
                return (sources.others[other], "a part of \(PartFuzzSources.otherNames[other])")
            case 6:
                return (part + (0..<(1 + below(63))).map { _ in UInt8(below(256)) }, "bytes appended")
            case 7:
                return ((0..<below(400)).map { _ in UInt8(below(256)) }, "random bytes")
            default:
                let at = below(data.count)
                let length = min(1 + below(63), data.count - at)
                data.replaceSubrange(at..<(at + length), with: repeatElement(0, count: length))
                return (data, "\(length) bytes zeroed at \(at)")
            }
        }

        /// The bytes of a part's header, as its stated head length makes them.
        static func headerBytes(_ part: [UInt8]) -> Int { 16 + Int(ForgedPart.word(part, at: 12)) + 32 }
    }
}
