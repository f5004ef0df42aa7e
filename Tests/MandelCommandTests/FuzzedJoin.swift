import Foundation
import ImageFiles
import ProcessTestSupport
import RenderModel

/// One fuzz input (``PartFuzzer``) joined in this process, by the code `mandel join` runs
/// (``PartJoin``, its output file, the free-space check, the commit), and what became of it.
struct FuzzedJoin {
    /// How it ended, in words: "refused (65)", "refused (66)", "joined: the one-machine PNG",
    /// "joined: an equivalent encoding".
    let name: String
    /// What was wrong with it, if anything.
    let problem: String?
    /// How far the process's peak resident memory rose above what it held before the join.
    let peakGrowth: Int

    /// The name a file output is given in the folder.
    static let outputName = "out.png"

    /// Writes `input`'s files into `folder` (empty but for earlier inputs' parts, which are
    /// overwritten) and returns their names in the order the join is given them.
    static func lay(_ input: PartFuzzer.Input, in folder: String) throws -> [String] {
        for (index, bytes) in input.files.enumerated() {
            let descriptor = open(folder + "/part-\(index)", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(descriptor) }
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == bytes.count else { throw POSIXError(.EIO) }
        }
        return input.order.map { "part-\($0)" }
    }

    /// Joins `input`'s files, laid out in `folder`, to `folder/out.png` or to a stream in memory.
    static func run(
        _ input: PartFuzzer.Input, in folder: String, sources: PartFuzzSources, measuresMemory: Bool
    ) throws -> FuzzedJoin {
        let paths = try lay(input, in: folder).map { folder + "/" + $0 }
        let outputPath = folder + "/" + outputName
        let before = measuresMemory ? PeakMemory.resetToResident() : 0
        let (failure, streamed) = join(paths, to: input.toStream ? nil : outputPath)
        let growth = measuresMemory ? max(0, PeakMemory.highWater() - before) : 0

        var name: String
        var problem: String?
        if let failure {
            if let refusal = failure as? PartJoinError {
                name = "refused (\(refusal.exitCode))"
                if refusal.description.isEmpty || refusal.description.contains(where: \.isNewline) {
                    problem = "refused without one line: \(refusal.description.debugDescription)"
                } else if let streamed, !streamed.isEmpty {
                    problem = "refused after writing \(streamed.count) bytes to the stream"
                }
            } else {
                name = "failed"
                problem = "failed with \(type(of: failure)), not a refusal of the parts: \(failure)"
            }
        } else {
            let joined =
                streamed ?? ((try? Data(contentsOf: URL(fileURLWithPath: outputPath))).map { [UInt8]($0) } ?? [])
            switch judge(joined, sources: sources, scratch: folder) {
            case .oneMachinePNG: name = "joined: the one-machine PNG"
            case .equivalent: name = "joined: an equivalent encoding"
            case .otherPixels where input.forgesImageData: name = "joined: a forged chunk's rows of the same Adler-32"
            case .otherPixels:
                name = "joined: a wrong PNG"
                problem = "exit 0 with a PNG of other pixels than the one-machine PNG's"
            case .wrong(let wrong):
                name = "joined: a wrong PNG"
                problem = "exit 0 with " + wrong
            }
        }
        let expected = Set(input.files.indices.map { "part-\($0)" })
        let left = contents(of: folder).filter { !expected.contains($0) && !(failure == nil && $0 == outputName) }
        if !left.isEmpty { problem = problem ?? "left \(left)" }
        unlink(outputPath)
        if let found = problem { problem = found + "; " + keep(input, problem: found) }
        return FuzzedJoin(name: name, problem: problem, peakGrowth: growth)
    }

    /// Keeps a failing input's parts in a folder of their own, with the command that joins them
    /// as the fuzzer did; says where.
    private static func keep(_ input: PartFuzzer.Input, problem: String) -> String {
        let folder = temporaryFolder()
        guard let names = try? lay(input, in: folder) else { return "its parts could not be kept" }
        let command =
            "cd \(folder) && mandel join \(names.joined(separator: " ")) -o \(input.toStream ? "-" : outputName)\n"
            + "# \(input.what): \(problem)\n"
        _ = FileManager.default.createFile(atPath: folder + "/command", contents: Data(command.utf8))
        return "its parts are kept in \(folder)"
    }

    /// Joins as `mandel join` does: every part checked first, then the output opened, its room
    /// checked, the PNG written and committed, or discarded on any error. Returns the error, and
    /// what reached the stream (nil for a file).
    private static func join(_ paths: [String], to outputPath: String?) -> (failure: (any Error)?, streamed: [UInt8]?) {
        var output: OutputFile?
        do {
            let join = try PartJoin(paths: paths)
            let file =
                try outputPath.map { path throws(ImageFileError) in try OutputFile(path: path) }
                ?? OutputFile(inMemoryNamed: "standard output")
            output = file
            try OutputRoom.check([.init(file: file, bytes: join.outputBytes, what: "the joined PNG takes")])
            try join.write(to: file)
            try OutputSet([file]).commit()
            return (nil, file.bytes)
        } catch {
            output?.discard()
            return (error, output?.bytes)
        }
    }

    /// What a joined PNG is.
    enum Joined: Equatable {
        /// Byte for byte the PNG one machine writes.
        case oneMachinePNG
        /// An equivalent encoding of it: a chunk forged so that its data inflate the same (a
        /// flipped bit the decoder ignores), so the same chunks, a stream a checker accepts, the
        /// same pixels; nothing short of compressing again can tell it apart.
        case equivalent
        /// A PNG that a checker accepts, of the one-machine PNG's chunks, with other pixels: for a
        /// chunk whose data were forged and its CRC recomputed, rows of the same Adler-32 as the
        /// true ones (the footers' Adler-32s, which the join writes, check out against them):
        /// changes of +1, −1, −1, +1 to four bytes in a row keep both of Adler's sums.
        case otherPixels
        /// Anything else, and what is wrong with it.
        case wrong(String)
    }

    /// Judges a PNG that a join wrote against the one-machine PNG; `scratch` is a folder to decode it in.
    static func judge(_ joined: [UInt8], sources: PartFuzzSources, scratch: String) -> Joined {
        if joined == sources.onePNG { return .oneMachinePNG }
        let image = sources.oneImage
        let types: [String]
        do {
            types = try PNGImage.checkStructure(
                of: joined, path: "the joined PNG", height: image.height, rowBytes: image.width * image.channels)
        } catch {
            return .wrong("a PNG that a checker rejects (\(error))")
        }
        guard joined.prefix(sources.headBytes) == sources.onePNG.prefix(sources.headBytes),
            types.filter({ $0 != "IDAT" }) == sources.oneChunks.filter({ $0 != "IDAT" })
        else { return .wrong("a PNG of other chunks than the one-machine PNG's") }
        let path = scratch + "/equivalent.png"
        defer { unlink(path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(joined))
        let decoded: PNGImage
        do { decoded = try PNGImage(contentsOf: path) } catch { return .wrong("a PNG that libpng rejects (\(error))") }
        return decoded.pixels == image.pixels ? .equivalent : .otherPixels
    }
}
