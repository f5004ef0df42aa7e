import Foundation
import Testing

@testable import ProcessDriver

/// A helper under hostile frame streams (``HelperFrameFuzzer``): `scripts/fuzz --target helper`
/// runs a million; the ordinary suite a few hundred from a fixed seed. Each input goes through the
/// helper's own session in process (the code `mandel helper` runs, over bytes in memory), and the
/// first few through the real binary too. Every input must end with the input read to its end,
/// or with a refusal (exit 65 or 71, a reason, a `failed` frame last); every frame the helper
/// sends must be one a parent accepts; no input may crash, hang, or take 100 MB.
@Suite("Helper frame fuzzing", .serialized)
struct HelperFrameFuzzTests {
    static let settings = FuzzSettings(inputs: 300, seed: 44, binaryInputs: 40)

    /// The memory an input may take, and what the session is told it can have.
    static let memoryLimit = 100 << 20
    static let sessionMemory = 64 << 20
    /// A tile that renders longer than this is stopped: slow work, not a hang.
    static let workSeconds = 2.0
    /// An input that has not ended after this is a hang: the process stops, naming it.
    static let hangSeconds = 60.0

    @Test("no frame stream crashes a helper, hangs it, takes 100 MB, or ends it without its documented code")
    func helperSurvivesHostileFrames() throws {
        let fuzzer = HelperFrameFuzzer(seed: Self.settings.seed)
        let measuresMemory = Self.settings.measuresMemory
        let counts = FuzzLoop.run(
            "helper", Self.settings, memoryLimit: Self.memoryLimit, hangSeconds: Self.hangSeconds,
            inputs: fuzzer.input
        ) {
            FuzzedSession.run(
                $0.bytes, memory: Self.sessionMemory, seconds: Self.workSeconds,
                measuresMemory: measuresMemory)
        }
        // The generator must reach both ends: inputs served to their end, and each kind of refusal.
        #expect(counts["read to the end", default: 0] > 0 && counts["refused (65)", default: 0] > 0, "\(counts)")
    }

    @Test("the real binary ends as documented on the first inputs: exit 0, 65 or 71, one line, never a signal")
    func realHelperSurvivesHostileFrames() throws {
        let fuzzer = HelperFrameFuzzer(seed: Self.settings.seed)
        var slow = 0
        for index in 0..<min(Self.settings.binaryInputs, Self.settings.inputs) {
            let input = fuzzer.input(index)
            let named = "input \(index) of seed \(Self.settings.seed) (\(input.what))"
            // Valid work longer than the session's budget (a tile of millions of pixels, each to the
            // limit): the binary, which has no budget, would do it all; not a hang, since the session
            // stopped it between rows. Told more memory than the binary has (about 100 MB), the
            // session takes every tile the binary would.
            let session = FuzzedSession.run(input.bytes, memory: 128 << 20, seconds: 1, measuresMemory: false)
            if session.name == "stopped (slow)" {
                slow += 1
                continue
            }
            let run: HelperRun
            do {
                run = try HelperRun.feed(input.bytes)
            } catch {
                Issue.record("\(named): \(error)")
                break
            }
            #expect(!run.signalled, "\(named): \(run.standardError)")
            #expect([0, 65, 71].contains(run.status), "\(named): exit \(run.status): \(run.standardError)")
            if run.status != 0 {
                #expect(run.refused(with: run.status), "\(named): \(run.standardError)")
            }
        }
        print(
            "fuzz: helper binary: \(min(Self.settings.binaryInputs, Self.settings.inputs) - slow) inputs, \(slow) slow ones left out"
        )
    }
}
