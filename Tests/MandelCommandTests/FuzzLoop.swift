import Foundation
import Testing

/// What `scripts/fuzz` tells a fuzz suite through its environment, or the suite's own defaults.
struct FuzzSettings: Sendable {
    /// How many inputs (`MANDEL_FUZZ_INPUTS`).
    let inputs: Int
    /// The seed they are made from (`MANDEL_FUZZ_SEED`): the same seed, the same inputs.
    let seed: UInt64
    /// Inputs also fed to the real binary (`MANDEL_FUZZ_BINARY_INPUTS`; each a program start).
    let binaryInputs: Int
    /// Peak memory is the test process's: measured only in a fuzz run, where no other test runs beside.
    var measuresMemory: Bool { ProcessInfo.processInfo.environment["MANDEL_FUZZ_INPUTS"] != nil }
    /// Says each input before it runs (`MANDEL_FUZZ_TRACE=1`): the last one said is the one that crashed.
    var traces: Bool { ProcessInfo.processInfo.environment["MANDEL_FUZZ_TRACE"] != nil }

    init(inputs: Int, seed: UInt64, binaryInputs: Int) {
        let environment = ProcessInfo.processInfo.environment
        self.inputs = environment["MANDEL_FUZZ_INPUTS"].flatMap { Int($0) } ?? inputs
        self.seed = environment["MANDEL_FUZZ_SEED"].flatMap { UInt64($0) } ?? seed
        self.binaryInputs = environment["MANDEL_FUZZ_BINARY_INPUTS"].flatMap { Int($0) } ?? binaryInputs
    }
}

/// One fuzz input: what was done to make it, in words.
protocol FuzzInput {
    var what: String { get }
}

/// How one fuzz input ended: its outcome in words (what the counts count), what was wrong with
/// it, and how far the process's peak resident memory rose for it.
protocol FuzzOutcome {
    var name: String { get }
    var problem: String? { get }
    var peakGrowth: Int { get }
}

extension HelperFrameFuzzer.Input: FuzzInput {}
extension PartFuzzer.Input: FuzzInput {}
extension FuzzedSession: FuzzOutcome {}
extension FuzzedJoin: FuzzOutcome {}

/// A fuzz suite's loop: each input in turn under a hang watchdog, expecting no problem and
/// less peak memory than `memoryLimit`; stops at the first failure, which it names by input,
/// seed and what was done to make it. Prints the counts of outcomes as `scripts/fuzz` reports
/// them (`fuzz: TARGET: …`) and returns them.
enum FuzzLoop {
    static func run<Input: FuzzInput>(
        _ target: String, _ settings: FuzzSettings, memoryLimit: Int, hangSeconds: Double,
        inputs make: (Int) -> Input, _ feed: (Input) throws -> any FuzzOutcome
    ) rethrows -> [String: Int] {
        let watchdog = HangWatchdog(seconds: hangSeconds, seed: settings.seed)
        defer { watchdog.stop() }
        var counts: [String: Int] = [:]
        var largest = 0
        let traces = settings.traces
        let started = Date()
        for index in 0..<settings.inputs {
            let input = make(index)
            watchdog.begin(index, input.what)
            if traces { FileHandle.standardError.write(Data("fuzz: input \(index): \(input.what)\n".utf8)) }
            let outcome = try feed(input)
            watchdog.end()
            counts[outcome.name, default: 0] += 1
            largest = max(largest, outcome.peakGrowth)
            let named = "input \(index) of seed \(settings.seed) (\(input.what))"
            #expect(outcome.problem == nil, "\(named): \(outcome.problem ?? "")")
            #expect(outcome.peakGrowth < memoryLimit, "\(named) took \(outcome.peakGrowth) bytes")
            if outcome.problem != nil || outcome.peakGrowth >= memoryLimit { break }
        }
        let seconds = Date().timeIntervalSince(started)
        print(
            "fuzz: \(target): \(settings.inputs) inputs from seed \(settings.seed) in "
                + "\(String(format: "%.1f", seconds)) s: "
                + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                + "; largest growth of peak memory \(largest >> 10) KiB")
        return counts
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
