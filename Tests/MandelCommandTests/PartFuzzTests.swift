import Foundation
import ProcessTestSupport
import Testing

/// `mandel join` under damaged and forged parts (``PartFuzzer``), in process: `scripts/fuzz
/// --target parts` runs a million; the ordinary suite a few hundred from a fixed seed. Each
/// input is joined by the join's own code (``FuzzedJoin``), to a file or to a stream, and the
/// first few by the real binary too, which must end as the code in process did. Every join must
/// be refused with one line (exit 65, or 66 for a file it cannot read), with nothing written to
/// a stream, or write exactly the one-machine PNG (or an equivalent encoding of it); none may
/// crash, hang, take 100 MB, or leave a file behind.
@Suite("Part fuzzing", .serialized)
struct PartFuzzTests {
    static let settings = FuzzSettings(inputs: 400, seed: 44, binaryInputs: 30)

    /// The memory a join may take.
    static let memoryLimit = 100 << 20
    /// A join that has not ended after this is a hang: the process stops, naming it.
    static let hangSeconds = 30.0

    /// The parts and the one-machine PNG, rendered once by the real binary for both tests.
    static let sources = Result { () throws(PartFuzzSources.RenderFailed) -> PartFuzzSources in
        do { return try PartFuzzSources.render() } catch let failed as PartFuzzSources.RenderFailed {
            throw failed
        } catch { throw PartFuzzSources.RenderFailed(message: "\(error)") }
    }

    @Test("no damaged or forged part crashes a join, hangs it, takes 100 MB, or ends it other than as documented")
    func joinSurvivesHostileParts() throws {
        let fuzzer = PartFuzzer(seed: Self.settings.seed, sources: try Self.sources.get())
        let folder = PartFuzzSources.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let measuresMemory = Self.settings.measuresMemory
        let counts = try FuzzLoop.run(
            "parts", Self.settings, memoryLimit: Self.memoryLimit, hangSeconds: Self.hangSeconds,
            inputs: fuzzer.input
        ) {
            try FuzzedJoin.run($0, in: folder, sources: fuzzer.sources, measuresMemory: measuresMemory)
        }
        // The generator must reach both ends: joins that succeed, and refusals.
        #expect(counts["joined: the one-machine PNG", default: 0] > 0, "\(counts)")
        #expect(counts["refused (65)", default: 0] > 0, "\(counts)")
    }

    @Test("the real binary ends each of the first inputs as the join in process did: the same code, one line")
    func realJoinAgrees() throws {
        let fuzzer = PartFuzzer(seed: Self.settings.seed, sources: try Self.sources.get())
        let folder = PartFuzzSources.scratchFolder()
        // Standard output goes to a file beside the folder: a PNG is no text.
        let standardOutput = folder + ".stdout"
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            unlink(standardOutput)
        }
        for index in 0..<min(Self.settings.binaryInputs, Self.settings.inputs) {
            let input = fuzzer.input(index)
            let named = "input \(index) of seed \(Self.settings.seed) (\(input.what))"
            let inProcess = try FuzzedJoin.run(input, in: folder, sources: fuzzer.sources, measuresMemory: false)
            let names = try FuzzedJoin.lay(input, in: folder)
            let output = input.toStream ? "-" : FuzzedJoin.outputName
            // Made empty for each run: the child's standard output opens it without truncating.
            _ = FileManager.default.createFile(atPath: standardOutput, contents: nil)
            let result = try MandelProcess.run(
                ["join"] + names + ["-o", output], in: folder,
                launch: MandelProcess.Launch(standardOutputPath: standardOutput), deadline: Self.hangSeconds)
            let streamed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: standardOutput)))
            let errorLines = result.standardError.split(separator: "\n")
            if result.status == 0 {
                #expect(inProcess.name.hasPrefix("joined"), "\(named): joined; in process \(inProcess.name)")
                let joined =
                    input.toStream
                    ? streamed : [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + output)))
                let judged = FuzzedJoin.judge(joined, sources: fuzzer.sources, scratch: folder)
                #expect(
                    judged == .oneMachinePNG || judged == .equivalent
                        || (judged == .otherPixels && input.forgesImageData), "\(named): \(judged)")
            } else {
                #expect(
                    inProcess.name == "refused (\(result.status))",
                    "\(named): exit \(result.status), in process \(inProcess.name)")
                #expect(
                    errorLines.count == 1 && errorLines[0].hasPrefix("mandel: "), "\(named): \(result.standardError)")
                #expect(streamed.isEmpty, "\(named): wrote \(streamed.count) bytes to standard output")
            }
            unlink(folder + "/" + FuzzedJoin.outputName)
            let left = contents(of: folder).filter { !names.contains($0) }
            #expect(left.isEmpty, "\(named): left \(left)")
        }
    }
}
