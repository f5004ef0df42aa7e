import ArgumentParser
import Dispatch
import Foundation
import MandelOptions
import RenderModel
import Synchronization

@testable import mandel

/// A seeded generator of hostile command lines, and the loop that feeds them to the parser.
///
/// Each input is built from the options and values that `--help` lists for each command,
/// mixed with values from every class the reliability rounds broke (huge numbers, blanks,
/// empty names, `/`, stream names, repeated list items, bytes that are not UTF-8), and then
/// mutated (options cut short, values spliced, arguments dropped or doubled). The same
/// seed gives the same inputs, so a failure is replayed by its seed and index.
struct ArgumentFuzzer {
    /// What one run found.
    struct Outcome {
        var inputs = 0
        var accepted = 0
        var refused = 0
        /// Inputs whose parse took longer than `slowLimit`, with their time in seconds.
        var slow: [([String], Double)] = []
        /// Inputs refused with a message that is not one line, or with an undocumented exit code.
        var badRefusals: [([String], String)] = []
    }

    /// The commands a user types after `mandel`, `help`, and an empty one for `mandel` alone.
    static let commands = Mandel.configuration.subcommands.map { $0._commandName } + ["help", ""]

    /// Every option name that `--help` prints for each command, read once.
    static let optionsByCommand: [String: [String]] = {
        var helps = ["help": "", "": Mandel.helpMessage(columns: 400)]
        for command in Mandel.configuration.subcommands {
            helps[command._commandName] = command.helpMessage(columns: 400)
        }
        var table: [String: [String]] = [:]
        for (command, help) in helps {
            let names = help.split(whereSeparator: { " ,()[]|<>\n".contains($0) })
                .filter { $0.hasPrefix("-") && $0.count > 1 && !$0.hasPrefix("---") }
                .map(String.init)
            table[command] = Array(Set(names)).sorted()
        }
        return table
    }()

    /// Words that `--help` shows as values (`(values: rows, centre)`), shared by every command.
    static let helpWords: [String] = {
        let help = RenderCommand.helpMessage(columns: 400) + CompareCommand.helpMessage(columns: 400)
        let words = help.split(whereSeparator: { " ,()[]|<>:;.'\"\n".contains($0) })
            .filter { $0.count < 16 && $0.allSatisfy { $0.isLetter || $0 == "-" } && !$0.hasPrefix("-") }
        return Array(Set(words.map(String.init))).sorted()
    }()

    /// Values from every class that has broken something before.
    static let hostileValues: [String] = [
        "", " ", "\t", "0", "-0", "1", "-1", "2", "7", "64", "65536", "100000000", "100000001",
        "2147483647", "2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "1e308", "1e-320", "-1e308", "nan", "inf", "-inf", "0x10", "0x1p3", "1_000", "1.5", ".5", "5.",
        "1e", "+", "-", "--", "x", "0x0", "64x48", "64X48", "1x1", "2147483647x2147483647", "10x", "x10",
        "1,1", "1,01", "1,2,4", ",", ",,", "1,", ",1", " 1 , 2 ", "-0.5,0", "0,0", "nan,0",
        "rows", "rows,rows", "centre", "center", "rows,centre", "centre,center", "gcd", "gcd,gcd",
        "serial,thread,operation,gcd,apply,tasks,pthread", "classic", " classic ", "fire",
        "#000000,#ffffff", "#12345g", "queue,mutex", "mutex,mutex", "histogram", "bw", "smooth",
        "/", "//", ".", "..", "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/full",
        "/proc/self/fd/1", "a/b.png", "../x.png", "x.png", "x.pbm", "x.svg", "x.json", "x.csv",
        "é", "\u{0}", "\u{7f}", "\u{202e}png", "\u{FEFF}1", String(repeating: "9", count: 400),
        String(repeating: "a", count: 5000), String(repeating: "1,", count: 300) + "1",
    ]

    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// SplitMix64: small, fast and the same on every machine.
    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    private mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    private mutating func value() -> String {
        switch below(10) {
        case 0..<5: return pick(Self.hostileValues)
        case 5..<7: return pick(Self.helpWords)
        case 7: return String(below(Int(Int32.max)) - 1000)
        case 8: return pick(Self.hostileValues) + "," + pick(Self.helpWords)
        default: return randomText()
        }
    }

    /// A short string of arbitrary characters, some of them not printable.
    private mutating func randomText() -> String {
        let alphabet = Array("0123456789abcxyzXe.,-+ #/\t\u{0}\u{7f}é=")
        return String((0..<below(12)).map { _ in pick(alphabet) })
    }

    /// One command line: a command, then options with values, then mutations.
    mutating func arguments() -> [String] {
        let command = pick(Self.commands)
        var arguments = command.isEmpty ? [] : [command]
        let options = Self.optionsByCommand[command] ?? []
        let allOptions = Self.optionsByCommand["render"]! + Self.optionsByCommand["compare"]!
        for _ in 0..<below(8) {
            switch below(12) {
            case 0..<7 where !options.isEmpty:
                arguments += [pick(options), value()]
            case 7:
                arguments.append(pick(allOptions))
            case 8:
                arguments.append(value())
            case 9:
                arguments.append(pick(options.isEmpty ? allOptions : options) + "=" + value())
            case 10:
                arguments.append(pick(["--help", "-h", "--version", "--json", "--quiet", "--progress"]))
            default:
                arguments.append(pick(Self.commands))
            }
        }
        if !arguments.isEmpty, below(4) == 0 {
            let index = below(arguments.count)
            switch below(3) {
            case 0: arguments.remove(at: index)
            case 1: arguments.insert(arguments[index], at: index)
            default: arguments[index] = String(arguments[index].prefix(below(arguments[index].count + 1)))
            }
        }
        return arguments
    }

    /// Parses `count` inputs from `seed` onwards, the way `mandel` parses its own, validation included.
    ///
    /// - Parameters:
    ///   - seed: the generator's seed; the same seed gives the same inputs.
    ///   - count: how many inputs to parse.
    ///   - slowLimit: a parse slower than this, in seconds, is reported as a hang.
    ///   - stallLimit: a parse that has not returned after this many seconds ends the process
    ///     with the input on standard error (a hang that never returns cannot be reported any other way).
    static func run(seed: UInt64, count: Int, slowLimit: Double, stallLimit: Double = 30) -> Outcome {
        var fuzzer = ArgumentFuzzer(seed: seed)
        var outcome = Outcome()
        let current = CurrentInput()
        let watchdog = Watchdog(stallLimit: stallLimit, current: current)
        defer { watchdog.stop() }
        for index in 0..<count {
            let arguments = fuzzer.arguments()
            current.state.withLock { $0 = (index, arguments) }
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                _ = try Mandel.parseAsRoot(arguments)
                outcome.accepted += 1
            } catch {
                outcome.refused += 1
                let code = Mandel.exitCode(for: error).rawValue
                let message = Mandel.message(for: error)
                if ![0, 64].contains(code) || (code == 64 && message.isEmpty) {
                    outcome.badRefusals.append((arguments, "exit \(code): \(message)"))
                }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if seconds > slowLimit { outcome.slow.append((arguments, seconds)) }
            outcome.inputs += 1
        }
        return outcome
    }

    /// The input being parsed, which the watchdog reads.
    final class CurrentInput: Sendable {
        let state = Mutex<(index: Int, arguments: [String])>((0, []))
    }

    /// Ends the process, naming the input, when one parse has not returned for `stallLimit` seconds.
    final class Watchdog {
        private let timer: any DispatchSourceTimer

        init(stallLimit: Double, current: CurrentInput) {
            timer = DispatchSource.makeTimerSource(queue: .global())
            let lastSeen = Mutex<(index: Int, since: UInt64)>((-1, DispatchTime.now().uptimeNanoseconds))
            timer.schedule(deadline: .now() + 1, repeating: 1)
            timer.setEventHandler {
                let (index, arguments) = current.state.withLock { $0 }
                let now = DispatchTime.now().uptimeNanoseconds
                let stalled = lastSeen.withLock { seen -> Bool in
                    if seen.index != index { seen = (index, now) }
                    return Double(now - seen.since) / 1e9 > stallLimit
                }
                if stalled {
                    FileHandle.standardError.write(Data("fuzz: input \(index) hangs: \(arguments)\n".utf8))
                    fatalError("fuzz: input \(index) did not return within \(stallLimit) s: \(arguments)")
                }
            }
            timer.resume()
        }

        func stop() { timer.cancel() }
    }
}
