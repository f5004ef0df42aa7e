import Foundation
import ImageFiles
import Testing

/// Every path through the PNG encoder, decoded in full by libpng (and so by zlib, which checks the
/// stream's Adler-32) and compared with a reference the test makes on its own: each bit depth and
/// colour type, each compression setting, one slice and many, with rows long enough that deflate
/// matches reach into the slice before (through the dictionary each slice starts from).
/// Expects `actual` to be `expected`, byte for byte, and says where they first differ. Not
/// `#expect(actual == expected)`: on a failure Swift Testing describes how two arrays differ, which
/// for two pictures of 180,000 bytes that differ nearly everywhere took longer than 10 minutes, and
/// a test that never reports its failure catches nothing.
func expectSameBytes(
    _ actual: [UInt8], _ expected: [UInt8], _ comment: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let first = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
    let difference = first.map { ", the first differing at \($0): \(actual[$0]) for \(expected[$0])" } ?? ""
    #expect(
        actual.count == expected.count && first == nil,
        "\(comment()): \(actual.count) bytes for \(expected.count)\(difference)", sourceLocation: sourceLocation)
}

@Suite("Encoder paths, decoded")
struct EncoderPathTests {
    /// A bilevel raster as a PBM holds it: 1 for black, eight pixels a byte, rows padded to a byte.
    /// Rings around a point off the picture, so that each row is like the rows above it.
    static func rings(width: Int, height: Int) -> [UInt8] {
        let rowBytes = (width + 7) / 8
        var bits = [UInt8](repeating: 0, count: rowBytes * height)
        for y in 0..<height {
            for x in 0..<width where ((x - width / 3) * (x - width / 3) + (y + 50) * (y + 50)) / 900 % 2 == 0 {
                bits[y * rowBytes + x / 8] |= 0x80 >> UInt8(x % 8)
            }
        }
        return bits
    }

    /// What libpng reads back from a PBM raster: 0 for black, 255 for white, one byte a pixel.
    static func gray(fromPBM bits: [UInt8], width: Int, height: Int) -> [UInt8] {
        let rowBytes = (width + 7) / 8
        return (0..<height).flatMap { y in
            (0..<width).map { x in bits[y * rowBytes + x / 8] & (0x80 >> UInt8(x % 8)) != 0 ? UInt8(0) : 255 }
        }
    }

    /// A picture-like gray image: a gradient with detail.
    static func grayPicture(width: Int, height: Int) -> [UInt8] {
        (0..<height).flatMap { y in (0..<width).map { x in UInt8(truncatingIfNeeded: (x + y) / 5 + (x * y) / 97) } }
    }

    /// Encodes with `slices` of `sliceBytes` on two workers, decodes, and returns libpng's pixels.
    static func roundTrip(
        _ pixels: [UInt8], width: Int, height: Int, channels: Int, bitDepth: Int, compression: PNGCompression,
        sliceBytes: Int, in folder: String
    ) throws -> PNGImage {
        let path = folder + "/\(bitDepth)-\(channels)-\(compression)-\(sliceBytes).png"
        let output = try OutputFile(path: path)
        let writer = try PNGWriter(
            output: output, width: width, height: height, channels: channels, bitDepth: bitDepth,
            compression: compression, texts: [], workers: 2, sliceBytes: sliceBytes)
        let rowBytes = writer.bytesPerRow
        try pixels.withUnsafeBufferPointer { all in
            // In writes of 13 rows, as bands arrive.
            for top in stride(from: 0, to: height, by: 13) {
                let count = min(13, height - top)
                try writer.write(
                    rows: UnsafeBufferPointer(rebasing: all[(top * rowBytes)..<((top + count) * rowBytes)]),
                    count: count)
            }
        }
        try writer.finish()
        try output.commit()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        _ = try PNGImage.checkStructure(of: bytes, path: path, height: height, rowBytes: rowBytes)
        return try PNGImage(contentsOf: path)
    }

    static let slicings = [1 << 30, 4096]

    @Test(
        "a bilevel picture of 4096-pixel rows, in one slice and in many, reads back as its PBM",
        arguments: PNGCompression.allCases)
    func bilevel(compression: PNGCompression) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (width, height) = (4093, 64)
        let bits = Self.rings(width: width, height: height)
        let expected = Self.gray(fromPBM: bits, width: width, height: height)
        for sliceBytes in Self.slicings {
            let image = try Self.roundTrip(
                bits, width: width, height: height, channels: 1, bitDepth: 1, compression: compression,
                sliceBytes: sliceBytes, in: folder)
            #expect(image.bitDepth == 1 && image.channels == 1 && image.width == width && image.height == height)
            expectSameBytes(image.pixels, expected, "\(compression), slices of \(sliceBytes) bytes")
        }
    }

    @Test("8-bit gray and RGB, in one slice and in many, read back byte for byte", arguments: PNGCompression.allCases)
    func eightBit(compression: PNGCompression) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (width, height) = (1501, 40)
        for (channels, pixels) in [
            (1, Self.grayPicture(width: width, height: height)),
            (3, PNGRoundTripTests.picture(width: width, height: height)),
        ] {
            for sliceBytes in Self.slicings {
                let image = try Self.roundTrip(
                    pixels, width: width, height: height, channels: channels, bitDepth: 8, compression: compression,
                    sliceBytes: sliceBytes, in: folder)
                #expect(image.bitDepth == 8 && image.channels == channels)
                expectSameBytes(
                    image.pixels, pixels, "\(channels) channels, \(compression), slices of \(sliceBytes) bytes")
            }
        }
    }
}
