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
        #expect(image.pixels == pixels)
        #expect(image.texts == ["Software": "mandel test", "mandel.center": "-0.5,0"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.png"], "no temporary file is left")
    }

    @Test(
        "every compression setting gives back the same pixels; fast is larger and small is smaller than balanced on a gradient"
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
            #expect(try PNGImage(contentsOf: path).pixels == pixels, "\(compression)")
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
        #expect(try PNGImage(contentsOf: folder + "/rows.png").pixels == pixels)
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
