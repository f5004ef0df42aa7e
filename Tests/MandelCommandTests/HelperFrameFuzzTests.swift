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
    static let environment = ProcessInfo.processInfo.environment
    static let inputs = environment["MANDEL_FUZZ_INPUTS"].flatMap { Int($0) } ?? 300
    static let seed = environment["MANDEL_FUZZ_SEED"].flatMap { UInt64($0) } ?? 44
    /// Inputs also fed to the real binary (each a program start: tens of milliseconds).
    static let binaryInputs = environment["MANDEL_FUZZ_BINARY_INPUTS"].flatMap { Int($0) } ?? 40
    /// Peak memory is the test process's: measured only in a fuzz run, where no other test runs beside.
    static let measuresMemory = environment["MANDEL_FUZZ_INPUTS"] != nil
    /// Says each input before it runs (`MANDEL_FUZZ_TRACE=1`): the last one said is the one that crashed.
    static let traces = environment["MANDEL_FUZZ_TRACE"] != nil

    /// The memory an input may take, and what the session is told it can have.
    static let memoryLimit = 100 << 20
    static let sessionMemory = 64 << 20
    /// A tile that renders longer than this is stopped: slow work, not a hang.
    static let workSeconds = 2.0
    /// An input that has not ended after this is a hang: the process stops, naming it.
    static let hangSeconds = 60.0

    @Test("no frame stream crashes a helper, hangs it, takes 100 MB, or ends it without its documented code")
    func helperSurvivesHostileFrames() throws {
        let fuzzer = HelperFrameFuzzer(seed: Self.seed)
        let watchdog = HangWatchdog(seconds: Self.hangSeconds, seed: Self.seed)
        var counts: [String: Int] = [:]
        var largest = 0
        let started = Date()
        for index in 0..<Self.inputs {
            let input = fuzzer.input(index)
            watchdog.begin(index, input.what)
            if Self.traces { FileHandle.standardError.write(Data("fuzz: input \(index): \(input.what)\n".utf8)) }
            let outcome = FuzzedSession.run(
                input.bytes, memory: Self.sessionMemory, seconds: Self.workSeconds, measuresMemory: Self.measuresMemory)
            watchdog.end()
            counts[outcome.name, default: 0] += 1
            largest = max(largest, outcome.peakGrowth)
            let named = "input \(index) of seed \(Self.seed) (\(input.what))"
            #expect(outcome.problem == nil, "\(named): \(outcome.problem ?? "")")
            #expect(outcome.peakGrowth < Self.memoryLimit, "\(named) took \(outcome.peakGrowth) bytes")
            if outcome.problem != nil || outcome.peakGrowth >= Self.memoryLimit { break }
        }
        watchdog.stop()
        let seconds = Date().timeIntervalSince(started)
        print(
            "fuzz: helper: \(Self.inputs) inputs from seed \(Self.seed) in \(String(format: "%.1f", seconds)) s: "
                + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                + "; largest growth of peak memory \(largest >> 10) KiB")
        // The generator must reach both ends: inputs served to their end, and each kind of refusal.
        #expect(counts["read to the end", default: 0] > 0 && counts["refused (65)", default: 0] > 0, "\(counts)")
    }

    @Test("the real binary ends as documented on the first inputs: exit 0, 65 or 71, one line, never a signal")
    func realHelperSurvivesHostileFrames() throws {
        let fuzzer = HelperFrameFuzzer(seed: Self.seed)
        var slow = 0
        for index in 0..<min(Self.binaryInputs, Self.inputs) {
            let input = fuzzer.input(index)
            let named = "input \(index) of seed \(Self.seed) (\(input.what))"
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
        print("fuzz: helper binary: \(min(Self.binaryInputs, Self.inputs) - slow) inputs, \(slow) slow ones left out")
    }
}

/// Ends the process, naming the input, when one has run longer than a hang's limit.
final class HangWatchdog: @unchecked Sendable {
    // @unchecked: `current` and `stopped` are used under `lock` only.
    private let lock = NSLock()
    private var current: (index: Int, what: String, since: Date)?
    private var stopped = false

    init(seconds: Double, seed: UInt64) {
        let thread = Thread { [self] in
            while lock.withLock({ !stopped }) {
                sleep(1)
                guard let running = lock.withLock({ current }), Date().timeIntervalSince(running.since) > seconds else {
                    continue
                }
                FileHandle.standardError.write(
                    Data("fuzz: hang: input \(running.index) of seed \(seed) (\(running.what)) ran \(seconds) s\n".utf8)
                )
                exit(70)
            }
        }
        thread.start()
    }

    func begin(_ index: Int, _ what: String) { lock.withLock { current = (index, what, Date()) } }
    func end() { lock.withLock { current = nil } }
    /// Ends the watching thread within a second.
    func stop() { lock.withLock { stopped = true } }
}
