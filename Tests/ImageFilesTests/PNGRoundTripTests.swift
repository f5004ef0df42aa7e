import Foundation
import ImageFiles
import Testing

/// A fresh empty folder for one test.
func temporaryFolder() -> String {
    let path = NSTemporaryDirectory() + "mandel-tests-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Writes `pixels` as a PNG at `path`.
func writePNG(
    _ pixels: [UInt8], width: Int, height: Int, channels: Int, to path: String, texts: [PNGWriter.TextChunk] = [],
    compression: PNGCompression = .balanced
) throws {
    let output = try OutputFile(path: path)
    let writer = try PNGWriter(
        output: output, width: width, height: height, channels: channels, compression: compression, texts: texts)
    try pixels.withUnsafeBufferPointer { try writer.write(rows: $0, count: height) }
    try writer.finish()
    try output.commit()
}

@Suite("PNG round trip")
struct PNGRoundTripTests {
    @Test(
        "every pixel and text chunk comes back through libpng",
        arguments: [(1, 1, 1), (7, 5, 1), (13, 3, 3), (256, 17, 3)])
    func roundTrip(width: Int, height: Int, channels: Int) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pixels = (0..<width * height * channels).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 7) }
        let texts = [
            PNGWriter.TextChunk(key: "Software", text: "mandel test"), .init(key: "mandel.center", text: "-0.5,0"),
        ]
        try writePNG(pixels, width: width, height: height, channels: channels, to: folder + "/out.png", texts: texts)
        let image = try PNGImage(contentsOf: folder + "/out.png")
        #expect(image.width == width)
        #expect(image.height == height)
        #expect(image.channels == channels)
        expectSameBytes(image.pixels, pixels)
        #expect(image.texts == ["Software": "mandel test", "mandel.center": "-0.5,0"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.png"], "no temporary file is left")
    }

    @Test(
        "every compression gives back the same pixels; on a gradient fast is larger and small smaller than balanced"
    )
    func compressionSettings() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A smooth two-channel gradient with some detail, like a rendered picture.
        let width = 300
        let height = 200
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                pixels += [UInt8((x + y) / 2 % 256), UInt8(x * 255 / width), UInt8((x * y / 37) % 256)]
            }
        }
        var sizes: [PNGCompression: Int] = [:]
        for compression in PNGCompression.allCases {
            let path = folder + "/\(compression.rawValue).png"
            try writePNG(pixels, width: width, height: height, channels: 3, to: path, compression: compression)
            expectSameBytes(try PNGImage(contentsOf: path).pixels, pixels, "\(compression)")
            sizes[compression] = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        }
        #expect(sizes[.fast]! > sizes[.balanced]!, "\(sizes)")
        #expect(sizes[.small]! <= sizes[.balanced]!, "\(sizes)")
    }

    @Test("rows can arrive in several blocks")
    func rowsInBlocks() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pixels = (0..<9 * 10).map { UInt8($0) }
        let output = try OutputFile(path: folder + "/rows.png")
        let writer = try PNGWriter(output: output, width: 9, height: 10, channels: 1, texts: [])
        try pixels.withUnsafeBufferPointer { all in
            try writer.write(rows: UnsafeBufferPointer(rebasing: all[0..<27]), count: 3)
            try writer.write(rows: UnsafeBufferPointer(rebasing: all[27...]), count: 7)
        }
        try writer.finish()
        try output.commit()
        expectSameBytes(try PNGImage(contentsOf: folder + "/rows.png").pixels, pixels)
    }

    /// A picture-like RGB image: gradients, with detail that deflate can match only nearby.
    static func picture(width: Int, height: Int) -> [UInt8] {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                pixels += [
                    UInt8((x + y) / 3 % 256), UInt8(x * 255 / width), UInt8(truncatingIfNeeded: x * y / 29 + (x ^ y)),
                ]
            }
        }
        return pixels
    }

    /// Writes `pixels` in writes of `rowsPerWrite` rows and returns the file's bytes.
    static func encode(
        _ pixels: [UInt8], width: Int, height: Int, channels: Int = 3, bitDepth: Int = 8, workers: Int,
        sliceBytes: Int, rowsPerWrite: Int, in folder: String
    ) throws -> [UInt8] {
        let path = folder + "/sliced-\(workers)-\(sliceBytes)-\(rowsPerWrite).png"
        let output = try OutputFile(path: path)
        let writer = try PNGWriter(
            output: output, width: width, height: height, channels: channels, bitDepth: bitDepth, texts: [],
            workers: workers, sliceBytes: sliceBytes)
        let rowBytes = writer.bytesPerRow
        try pixels.withUnsafeBufferPointer { all in
            for top in stride(from: 0, to: height, by: rowsPerWrite) {
                let count = min(rowsPerWrite, height - top)
                try writer.write(
                    rows: UnsafeBufferPointer(rebasing: all[(top * rowBytes)..<((top + count) * rowBytes)]),
                    count: count)
            }
        }
        try writer.finish()
        try output.commit()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(
        "slices compressed on several threads are one stream libpng reads back; only the slice size changes a byte"
    )
    func slices() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Rows of 291 bytes: a 32 KiB dictionary reaches back over more than a hundred of them.
        let (width, height) = (97, 300)
        let pixels = Self.picture(width: width, height: height)
        for sliceBytes in [1, 1000, 40_000, 1 << 20] {
            var files: [[UInt8]] = []
            for rowsPerWrite in [1, 7, 150, height] {
                for workers in [1, 2, 5] {
                    let bytes = try Self.encode(
                        pixels, width: width, height: height, workers: workers, sliceBytes: sliceBytes,
                        rowsPerWrite: rowsPerWrite, in: folder)
                    files.append(bytes)
                    let types = try PNGImage.checkStructure(
                        of: bytes, path: "sliced", height: height, rowBytes: width * 3)
                    #expect(types.first == "IHDR" && types.dropFirst().allSatisfy { $0 == "IDAT" || $0 == "IEND" })
                    let path = folder + "/check.png"
                    try Data(bytes).write(to: URL(fileURLWithPath: path))
                    expectSameBytes(
                        try PNGImage(contentsOf: path).pixels, pixels,
                        "slices of \(sliceBytes) bytes, \(rowsPerWrite) rows a write, \(workers) workers")
                }
            }
            // Not the worker count, nor how the rows were handed over.
            #expect(Set(files).count == 1, "slices of \(sliceBytes) bytes")
        }
    }

    @Test("slicing costs under 1% of the file against one slice")
    func slicingCost() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (width, height) = (1000, 1000)
        let pixels = Self.picture(width: width, height: height)
        let whole = try Self.encode(
            pixels, width: width, height: height, workers: 1, sliceBytes: 1 << 30, rowsPerWrite: height, in: folder)
        let sliced = try Self.encode(
            pixels, width: width, height: height, workers: 2, sliceBytes: PNGWriter.defaultSliceBytes,
            rowsPerWrite: 64, in: folder)
        #expect(Double(sliced.count) < Double(whole.count) * 1.01, "\(sliced.count) bytes against \(whole.count)")
    }

    @Test("each slice starts from the 32 KiB before it: rows that repeat across slices cost nothing again")
    func dictionaries() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Twenty rows of noise, repeated: after the first twenty every row is a match 20 rows back,
        // which a slice of 54 rows can make only through its dictionary.
        let (width, height) = (100, 2000)
        var generator = SystemRandomNumberGenerator()
        let pattern = (0..<20 * width * 3).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let rowBytes = width * 3
        var pixels: [UInt8] = []
        for y in 0..<height {
            let start = y % 20 * rowBytes
            pixels += pattern[start..<(start + rowBytes)]
        }
        let whole = try Self.encode(
            pixels, width: width, height: height, workers: 1, sliceBytes: 1 << 30, rowsPerWrite: height, in: folder)
        let sliced = try Self.encode(
            pixels, width: width, height: height, workers: 2, sliceBytes: 16 * 1024, rowsPerWrite: 100, in: folder)
        // Without dictionaries each of the 38 slices would hold the 6 KB of noise again.
        #expect(sliced.count < whole.count * 2, "\(sliced.count) bytes against \(whole.count)")
    }

    @Test("a bilevel row (1 for black, as in a PBM) is a 1-bit PNG whose black reads back as 0")
    func bilevel() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (width, height) = (13, 5)
        // Two bytes a row; pixel x of row y is black when (x + y) % 3 == 0.
        var bits = [UInt8](repeating: 0, count: 2 * height)
        for y in 0..<height {
            for x in 0..<width where (x + y) % 3 == 0 { bits[y * 2 + x / 8] |= 0x80 >> UInt8(x % 8) }
        }
        let bytes = try Self.encode(
            bits, width: width, height: height, channels: 1, bitDepth: 1, workers: 2, sliceBytes: 4, rowsPerWrite: 2,
            in: folder)
        _ = try PNGImage.checkStructure(of: bytes, path: "bilevel", height: height, rowBytes: 2)
        let path = folder + "/bilevel.png"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let image = try PNGImage(contentsOf: path)
        #expect(image.bitDepth == 1 && image.channels == 1)
        let expected = (0..<height).flatMap { y in (0..<width).map { x in (x + y) % 3 == 0 ? UInt8(0) : 255 } }
        expectSameBytes(image.pixels, expected)
    }

    @Test("a PNG missing rows is refused and leaves nothing")
    func missingRows() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try OutputFile(path: folder + "/short.png")
        let writer = try PNGWriter(output: output, width: 4, height: 4, channels: 1, texts: [])
        #expect(throws: ImageFileError.self) { try writer.finish() }
        output.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}

@Suite("OutputFile")
struct OutputFileTests {
    @Test("a missing folder cannot be created into")
    func missingFolder() {
        #expect(
            throws: ImageFileError.cannotCreate(
                path: "/nonexistent-mandel/x.png", reason: "the folder '/nonexistent-mandel' does not exist")
        ) {
            _ = try OutputFile(path: "/nonexistent-mandel/x.png")
        }
    }

    @Test("a directory is not a file")
    func directory() {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: ImageFileError.self) { _ = try OutputFile(path: folder) }
    }

    @Test("a full disk fails the write with exit code 74")
    func fullDisk() throws {
        let pixels = [UInt8](repeating: 7, count: 512 * 512 * 3)
        do {
            try writePNG(pixels, width: 512, height: 512, channels: 3, to: "/dev/full")
            Issue.record("writing to /dev/full succeeded")
        } catch let error as ImageFileError {
            #expect(error.exitCode == 74)
            #expect(error.description.contains("no space left"))
        }
    }

    @Test("a discarded file leaves nothing, and an existing file is untouched")
    func discard() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/keep.png"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let output = try OutputFile(path: path)
        fputs("partial", output.stream)
        output.discard()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["keep.png"])
    }

    @Test("a discarded set of outputs leaves none of its temporary files, and no output appears")
    func discardSet() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outputs = try ["a.png", "b.json"].map { try OutputFile(path: folder + "/" + $0) }
        for output in outputs { fputs("partial", output.stream) }
        // Each output's temporary file is in the folder until the set is discarded.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 2)
        OutputSet(outputs).discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
    }
}
