import Foundation
import ImageFiles
import ProcessTestSupport

/// What the part fuzzer damages and forges, rendered once by the real binary: a small picture
/// as ``count`` parts, the same picture on one machine (what a join must write, byte for byte),
/// and parts of other renders (another zoom, another N, another compression, another colouring).
struct PartFuzzSources: Sendable {
    /// The picture: the one `scripts/fuzz-parts` renders.
    static let picture = ["--size", "150x120", "--color", "smooth", "--zoom", "2"]
    static let count = 4
    /// The other renders, and the options that make each another picture's part.
    static let otherNames = ["another zoom", "a picture cut in 3", "another compression", "another colouring"]
    static let otherOptions = [
        ["--zoom", "3", "--part", "1/\(count)"], ["--part", "1/3"], ["--compression", "fast", "--part", "1/\(count)"],
        ["--color", "gray", "--part", "1/\(count)"],
    ]

    /// The PNG one machine writes.
    let onePNG: [UInt8]
    /// It, decoded: an equivalent encoding must decode to exactly its pixels.
    let oneImage: PNGImage
    /// Its chunks' types, in order.
    let oneChunks: [String]
    /// The bytes of its head (the PNG before the first IDAT chunk), as every part states it.
    let headBytes: Int
    /// Its parts, 0 to ``count`` − 1.
    let parts: [[UInt8]]
    /// Parts of the other renders, in the order of ``otherNames``.
    let others: [[UInt8]]

    /// Renders everything in a fresh folder, which is removed after.
    static func render() throws -> PartFuzzSources {
        let folder = PartFuzzSources.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func rendered(_ options: [String], _ name: String) throws -> [UInt8] {
            let result = try MandelProcess.run(["render"] + picture + options + ["-o", name], in: folder)
            guard result.status == 0 else { throw RenderFailed(message: "\(options): \(result.standardError)") }
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
        }
        let one = try rendered([], "one.png")
        let image = try PNGImage(contentsOf: folder + "/one.png")
        return PartFuzzSources(
            onePNG: one, oneImage: image,
            oneChunks: try PNGImage.checkStructure(
                of: one, path: "one.png", height: image.height, rowBytes: image.width * image.channels),
            headBytes: ForgedPart(try rendered(["--part", "0/\(count)"], "p0")).header.pngHead.count,
            parts: try (0..<count).map { try rendered(["--part", "\($0)/\(count)"], "p\($0)") },
            others: try otherOptions.enumerated().map { try rendered($0.element, "other\($0.offset)") })
    }

    /// A fresh empty folder in memory (`/dev/shm`) where there is one: the fuzzer writes four
    /// files for each of a million inputs.
    static func scratchFolder() -> String {
        let memory = "/dev/shm"
        guard access(memory, W_OK) == 0 else { return temporaryFolder() }
        let path = memory + "/mandel-part-fuzz-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    struct RenderFailed: Error { let message: String }
}
