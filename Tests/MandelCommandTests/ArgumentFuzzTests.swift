import Foundation
import Testing

/// The command-line parser under hostile input: `scripts/fuzz` runs this suite with a
/// million inputs; the ordinary suite runs a few thousand from a fixed seed.
@Suite("Argument fuzzing")
struct ArgumentFuzzTests {
    /// `MANDEL_FUZZ_INPUTS` and `MANDEL_FUZZ_SEED` from the environment, or the suite's own.
    static let inputs = ProcessInfo.processInfo.environment["MANDEL_FUZZ_INPUTS"].flatMap { Int($0) } ?? 200
    static let seed = ProcessInfo.processInfo.environment["MANDEL_FUZZ_SEED"].flatMap { UInt64($0) } ?? 33

    @Test("no input crashes, hangs or is refused without a one-line reason and exit code 64")
    func parserSurvivesHostileInput() {
        let start = Date()
        // A parse takes milliseconds (up to 3 s in a debug build on a loaded machine): 10 s is a hang.
        let outcome = ArgumentFuzzer.run(seed: Self.seed, count: Self.inputs, slowLimit: 10)
        let seconds = Date().timeIntervalSince(start)
        print(
            "fuzz: \(outcome.inputs) inputs from seed \(Self.seed) in \(String(format: "%.1f", seconds)) s:"
                + " \(outcome.accepted) accepted, \(outcome.refused) refused,"
                + " \(outcome.slow.count) slow, \(outcome.badRefusals.count) bad refusals")
        #expect(outcome.inputs == Self.inputs)
        // Both kinds of input must occur, or the generator has stopped reaching the commands.
        #expect(outcome.accepted > 0 && outcome.refused > 0)
        #expect(outcome.slow.isEmpty, "slow parses: \(outcome.slow.prefix(5))")
        #expect(outcome.badRefusals.isEmpty, "refusals: \(outcome.badRefusals.prefix(5))")
    }
}
