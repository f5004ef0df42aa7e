import ArgumentParser
import Foundation
import ImageFiles
import MandelOptions
import MandelbrotCore
import ProcessTestSupport
import RenderModel
import Testing

@testable import mandel

/// Issue 33, by class: input rules, outputs that name streams or alias each other, names
/// built from data, help and version, and every signal that ends the process.
@Suite("Reliability, round three: input rules, in process")
struct InputRuleTests {
    @Test("spaces around every word value are ignored, --palette's too")
    func blanksAroundWords() throws {
        let render = try RenderCommand.parse([
            "--palette", " classic ", "--color", " smooth ", "--split", "\ttiles ", "--order", " centre ",
            "--compression", " fast ", "--kernel", " scalar ",
        ])
        #expect(render.view.palette != nil && render.work.orders == [.centre])
        #expect(try RenderCommand.parse(["--palette", " fire "]).view.palette != nil)
    }

    @Test("centre and center are one word wherever one is accepted", arguments: ["center", " center", "centre"])
    func bothSpellings(word: String) throws {
        #expect(try RenderCommand.parse(["--order", word]).work.orders == [.centre])
        #expect(try CompareCommand.parse(["--order", "rows,\(word)"]).work.orders == [.rows, .centre])
        // Both spellings in one list are the same order twice, which every list refuses.
        let twice = refusal(CompareCommand.self, ["--order", "centre,\(word)"])
        #expect(twice?.status == 64 && twice?.message.contains("--order lists centre more than once") == true)
    }

    @Test("one rule for duplicates in every list: an item given twice is refused, never dropped")
    func duplicatesRefused() {
        for (command, arguments, words) in [
            ("compare", ["--strategies", "gcd,gcd"], "--strategies lists gcd more than once"),
            ("compare", ["--strategies", "gcd, tasks ,gcd"], "--strategies lists gcd more than once"),
            ("sweep", ["--workers", "1,2", "--strategies", "tasks,tasks"], "--strategies lists tasks more than once"),
            ("sweep", ["--workers", "1,01"], "--workers lists 1 more than once"),
            ("compare", ["--order", "rows,rows"], "--order lists rows more than once"),
        ] {
            let outcome =
                command == "compare"
                ? refusal(CompareCommand.self, ["--size", "64x48"] + arguments)
                : refusal(SweepCommand.self, ["--size", "64x48"] + arguments)
            #expect(outcome?.status == 64, "\(arguments) was accepted")
            #expect(outcome?.message.contains(words) == true, "\(arguments): \(outcome?.message ?? "accepted")")
        }
        // The baseline runs first whether or not it is named; naming it once is no repeat.
        #expect(refusal(CompareCommand.self, ["--size", "64x48", "--strategies", "serial,gcd"]) == nil)
    }

    @Test(
        "a whole number too large for any option says out of range, with the option's own range",
        arguments: [
            (["--iterations", "9223372036854775808"], "from 1 to 4294967294"),
            (["--workers", "-9223372036854775809"], "from 1 to 1024"),
            (["--workers", "2,9223372036854775808"], "from 1 to 1024"),
            (["--supersample", "99999999999999999999"], "from 1 to 8"),
            (["--preview", "9223372036854775808"], "from 2 to 65536"),
            (["--merge-batch", "99999999999999999999"], "from 1 to 1048576"),
            (["--tile", "9223372036854775808"], "WxH or N, each side from 1 to 2147483647"),
            (["--tile", "4x99999999999999999999"], "WxH or N, each side from 1 to 2147483647"),
            (["--size", "9223372036854775808x4"], "WxH or N, each side from 1 to 2147483647"),
            (["--band-height", "99999999999999999999"], "of 1 or more, at most 9223372036854775807"),
            (["--parts", "99999999999999999999"], "of 1 or more, at most 9223372036854775807"),
            (["--frames", "99999999999999999999"], "of 1 or more, at most 9223372036854775807"),
        ])
    func outOfRange(arguments: [String], range: String) {
        let outcome = refusal(RenderCommand.self, arguments)
        #expect(outcome?.status == 64)
        #expect(
            outcome?.message.contains("out of range: give \(range.hasPrefix("WxH") ? "" : "a whole number ")\(range)")
                == true,
            "\(arguments): \(outcome?.message ?? "accepted")")
        #expect(outcome?.message.contains("-9223372036854775808") == false, "\(outcome?.message ?? "")")
    }

    @Test("compare's and serve's whole numbers past Int64 name their own ranges too")
    func outOfRangeElsewhere() throws {
        for (arguments, range) in [
            (["--runs", "99999999999999999999"], "from 1 to 1000"),
            (["--warmup", "-99999999999999999999"], "from 0 to 100"),
        ] {
            let outcome = refusal(CompareCommand.self, ["--size", "64x48"] + arguments)
            #expect(outcome?.message.contains("give a whole number \(range)") == true, "\(outcome?.message ?? "")")
        }
        for (arguments, range) in [
            (["--port", "99999999999999999999"], "from 0 to 65535"),
            (["--queue", "99999999999999999999"], "from 0 to 10000"),
            (["--slots", "99999999999999999999"], "from 1 to 64"),
            (["--max-iterations", "99999999999999999999"], "from 1 to 4294967294"),
        ] {
            let result = try MandelProcess.run(["serve"] + arguments)
            expectRefusal(result, status: 64, mentioning: "out of range: give a whole number \(range)")
        }
    }

    @Test("--tile-wait-mode without a wait names the real problem, whether --tile-wait 0 was given or not")
    func tileWaitModeMessage() {
        for arguments in [["--tile-wait", "0", "--tile-wait-mode", "async"], ["--tile-wait-mode", "blocking"]] {
            let outcome = refusal(RenderCommand.self, arguments)
            #expect(outcome?.status == 64)
            #expect(outcome?.message.contains("add --tile-wait") == false, "\(outcome?.message ?? "accepted")")
            #expect(outcome?.message.contains("--tile-wait is 0 or not given") == true)
        }
    }

    @Test("one tile rule for every split: only the tiles split uses --tile, so only it checks its size")
    func tileRuleAcrossSplits() {
        for split in ["rows", "bands"] {
            #expect(
                refusal(RenderCommand.self, ["--size", "64x48", "--split", split, "--tile", "64"]) == nil, "\(split)")
            #expect(
                refusal(RenderCommand.self, ["--size", "64x48", "--split", split, "--tile", "8"]) == nil, "\(split)")
        }
        #expect(refusal(RenderCommand.self, ["--size", "64x48", "--split", "tiles", "--tile", "64"])?.status == 64)
    }

    @Test("names of standard output are standard output: -o /dev/stdout with --json is refused as -o - is")
    func standardOutputNames() {
        for name in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            #expect(OutputFile.namesStandardOutput(name))
            let outcome = refusal(RenderCommand.self, ["-o", name, "--json"])
            #expect(outcome?.status == 64, "-o \(name) --json was accepted")
            #expect(outcome?.message.contains("-o \(name) writes to standard output") == true)
            let trace = refusal(RenderCommand.self, ["-o", "x.png", "--trace", name, "--json"])
            #expect(trace?.message.contains("--trace \(name) writes to standard output") == true)
            let twice = refusal(CompareCommand.self, ["--json", name, "--csv", "-"])
            #expect(twice?.status == 64, "compare --json \(name) --csv - was accepted")
        }
        #expect(!OutputFile.namesStandardOutput("/dev/fd/10") && !OutputFile.namesStandardOutput("/dev/fd/1x"))
        #expect(OutputFile.descriptorNamed(by: "/dev/stderr") == 2 && OutputFile.descriptorNamed(by: "/dev/fd/") == nil)
    }

    @Test("a dangling symbolic link to another output of the same command is the same file")
    func danglingLinkAlias() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.png", withDestinationPath: "s.png")
        try FileManager.default.createSymbolicLink(atPath: folder + "/abs.png", withDestinationPath: folder + "/t.png")
        try FileManager.default.createSymbolicLink(atPath: folder + "/chain.png", withDestinationPath: "abs.png")
        #expect(OutputSet.firstSameFile(among: [folder + "/s.png", folder + "/link.png"]) != nil)
        #expect(OutputSet.firstSameFile(among: [folder + "/chain.png", folder + "/t.png"]) != nil)
        #expect(OutputSet.firstSameFile(among: [folder + "/link.png", folder + "/t.png"]) == nil)
        let outcome = refusal(
            RenderCommand.self, ["-o", folder + "/s.png", "--size", "64x48", "--cost-map", folder + "/link.png"])
        #expect(outcome?.status == 64 && outcome?.message.contains("name the same file") == true)
        // An empty name is no file at all: it is refused when created, with that reason, never as an alias.
        #expect(OutputSet.firstSameFile(among: ["", ""]) == nil)
    }

    @Test("compare's ownership maps have safe file names: a row's '/' becomes '-'")
    func mapFileNames() throws {
        let compare = try CompareCommand.parse(["--order", "rows,centre", "--heartbeat-overhead"])
        let names = compare.entries.map(\.fileName)
        #expect(names.contains("serial-centre") && names.allSatisfy { !$0.contains("/") }, "\(names)")
        #expect(names.contains { $0.hasSuffix("no-heartbeat") })
    }
}

@Suite("Reliability, round three: the binary", .serialized)
struct ReliabilityRound3ProcessTests {
    @Test(
        "help and version into a full device fail: exit 74, one line on stderr",
        arguments: [
            ["--help"], ["--version"], ["render", "--help"], ["help"], ["help", "render"], ["compare", "-h"],
            ["strategies"], ["palettes"],
        ])
    func informationIntoFullDevice(arguments: [String]) throws {
        let result = try MandelProcess.run(arguments, launch: .init(standardOutputPath: "/dev/full"))
        #expect(result.status == 74, "\(arguments): exit \(result.status)")
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(result.firstErrorLine.contains("standard output"), "\(result.firstErrorLine)")
    }

    @Test("help names a command, and --version takes nothing else: 64 otherwise")
    func informationArguments() throws {
        let bogus = try MandelProcess.run(["help", "bogus"])
        expectRefusal(bogus, status: 64, mentioning: "unknown command 'bogus'")
        #expect(bogus.standardOutput.isEmpty)
        expectRefusal(try MandelProcess.run(["--version", "extra"]), status: 64, mentioning: "--version takes no")
        expectRefusal(
            try MandelProcess.run(["help", "render", "sweep"]), status: 64, mentioning: "help names one command")
        let help = try MandelProcess.run(["help", "sweep"])
        #expect(help.status == 0 && help.standardOutput.contains("mandel sweep"))
    }

    @Test("compare --ownership-maps '' is an empty name, refused as everywhere (73), never the root folder")
    func emptyMapsFolder() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // As nobody, who may not write into '/': on a build that turned '' into '/', the reason would be wrong.
        let result = try MandelProcess.run(
            ["compare", "--size", "32", "--runs", "1", "--warmup", "0", "--strategies", "gcd", "--ownership-maps", ""],
            in: folder, launch: .init(asNobody: true))
        expectRefusal(result, status: 73, mentioning: "the name is empty", leaving: folder)
    }

    @Test("compare --ownership-maps with rows named by order, merge and heartbeat writes every map")
    func mapsForEveryRow() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/maps", withIntermediateDirectories: false)
        let result = try MandelProcess.run(
            [
                "compare", "--size", "32", "--runs", "1", "--warmup", "0", "--strategies", "gcd", "--order",
                "rows,centre", "--tile", "8", "--heartbeat-overhead", "--ownership-maps", "maps",
            ], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let maps = contents(of: folder + "/maps")
        #expect(maps.contains("gcd-centre.png") && maps.contains("serial-rows.png"), "\(maps)")
        #expect(maps.contains { $0.contains("no-heartbeat") }, "\(maps)")
        let merges = try MandelProcess.run(
            [
                "compare", "--size", "32", "--runs", "1", "--warmup", "0", "--strategies", "gcd", "--color",
                "histogram", "--merges", "queue,mutex", "--ownership-maps", "maps",
            ], in: folder)
        #expect(merges.status == 0, "\(merges.standardError)")
        #expect(contents(of: folder + "/maps").contains("gcd-mutex.png"))
    }

    @Test("a dangling link to another output is refused before anything is written")
    func danglingLinkRefused() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.png", withDestinationPath: "s.png")
        let result = try MandelProcess.run(
            ["render", "--size", "32", "-o", "s.png", "--cost-map", "link.png"], in: folder)
        expectRefusal(result, status: 64, mentioning: "name the same file")
        #expect(contents(of: folder) == ["link.png"])
    }

    @Test("/dev/stdout redirected to a file is the stream, not a file to replace: the trace is kept")
    func standardOutputRedirectedToFile() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["/dev/stdout", "/dev/fd/1"] {
            let captured = folder + "/out.txt"
            #expect(FileManager.default.createFile(atPath: captured, contents: nil))
            let result = try MandelProcess.run(
                ["render", "--size", "32", "-o", "x.png", "--trace", name], in: folder,
                launch: .init(standardOutputPath: captured))
            #expect(result.status == 0, "\(name): \(result.standardError)")
            let trace = try Data(contentsOf: URL(fileURLWithPath: captured))
            #expect((try? JSONSerialization.jsonObject(with: trace)) != nil, "\(name): the file is not the trace")
            // The human report went to standard error, as with --trace -.
            #expect(result.standardError.contains("x.png"), "\(result.standardError)")
            #expect(contents(of: folder).sorted() == ["out.txt", "x.png"], "\(contents(of: folder))")
            try FileManager.default.removeItem(atPath: folder + "/x.png")
        }
    }

    @Test("/dev/stdout into a pipe is the pipe; /dev/stdin is refused with its true reason")
    func standardStreamsIntoPipe() throws {
        for name in ["/dev/stdout", "/dev/fd/1"] {
            let result = try MandelProcess.run(["render", "--size", "16", "-o", name])
            #expect(result.status == 0, "\(name): \(result.standardError)")
            #expect(!result.standardError.contains("does not accept new files"), "\(result.standardError)")
        }
        let png = try MandelProcess.runData(["render", "--size", "16", "-o", "/dev/stdout"])
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "standard output is not the PNG")
        let stdin = try MandelProcess.run(["render", "--size", "16", "-o", "/dev/stdin"])
        expectRefusal(stdin, status: 73, mentioning: "it is standard input")
    }
}

@Suite("Reliability, round three: signals", .serialized)
struct SignalClassTests {
    /// Every catchable signal whose default action ends the process, beyond those InterruptTests sends.
    static let endingSignals: [(Int32, String)] = [
        (SIGXCPU, "SIGXCPU"), (SIGVTALRM, "SIGVTALRM"), (SIGPROF, "SIGPROF"), (SIGSTKFLT, "SIGSTKFLT"),
        (SIGPWR, "SIGPWR"), (SIGSYS, "SIGSYS"), (__libc_current_sigrtmin(), "SIGRTMIN+0"),
        (__libc_current_sigrtmin() + 5, "SIGRTMIN+5"),
        (__libc_current_sigrtmax(), "SIGRTMIN+\(__libc_current_sigrtmax() - __libc_current_sigrtmin())"),
        (SIGIO, "SIGIO"),
        // The signals of a fault, sent by another process: Swift's backtracer would report a crash and go on.
        (SIGABRT, "SIGABRT, sent by another process"), (SIGBUS, "SIGBUS, sent by another process"),
        (SIGFPE, "SIGFPE, sent by another process"), (SIGILL, "SIGILL, sent by another process"),
        (SIGSEGV, "SIGSEGV, sent by another process"), (SIGTRAP, "SIGTRAP, sent by another process"),
    ]

    /// signal(7)'s default actions on Linux: the signals whose default ends the process (Term or Core).
    static let endingByDefault: Set<Int32> = Set(
        [SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGKILL, SIGUSR1, SIGSEGV, SIGUSR2]
            + [SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS]
            + Array(__libc_current_sigrtmin()...__libc_current_sigrtmax()))

    @Test("the signals tested are the whole class: every signal whose default ends the process but three")
    func classIsWhole() {
        // SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2: InterruptTests. SIGKILL cannot be caught;
        // SIGPIPE and SIGXFSZ become write errors (ReliabilityTests, the full device and the file size limit).
        let elsewhere: Set<Int32> = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2]
        let exempt: Set<Int32> = [SIGKILL, SIGPIPE, SIGXFSZ]
        let tested = Set(Self.endingSignals.map(\.0)).union(elsewhere)
        let realTime = Set(__libc_current_sigrtmin()...__libc_current_sigrtmax())
        // The real-time signals are tested at their first, a middle one and their last.
        let missing = Self.endingByDefault.subtracting(tested).subtracting(exempt).subtracting(realTime)
        #expect(missing.isEmpty, "signals whose default ends the process, untested: \(missing.sorted())")
        // Every number from 1 to SIGRTMAX is in the table or known not to end the process by default.
        let notEnding: Set<Int32> = [SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGWINCH]
        let unknown = Set(Int32(1)...__libc_current_sigrtmax()).subtracting(Self.endingByDefault)
            .subtracting(notEnding).subtracting([32, 33])  // the C library's own two below SIGRTMIN
        #expect(unknown.isEmpty, "signals neither table names: \(unknown.sorted())")
    }

    /// A fault of the process itself stays a crash: the backtracer (or the default action) gets it,
    /// however the signal watch takes the same signals from other processes.
    @Test(
        "a crash of the process itself is a crash: a trap, abort(), a bad pointer, raise(SIGSEGV)",
        arguments: [("trap", SIGILL), ("abort", SIGABRT), ("segv", SIGSEGV), ("raise", SIGSEGV)])
    func ownCrashStaysACrash(kind: String, signal: Int32) throws {
        for backtracer in ["", "export SWIFT_BACKTRACE=enable=no; "] {
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let process = try MandelProcess.start(
                ["render", "--size", "16", "-o", "x.png"], in: folder,
                launch: .init(shellSetup: backtracer + "export MANDEL_CRASH=\(kind)"))
            let errorText = try MandelProcess.standardErrorToExit(
                of: process, waitingFor: "mandel to crash (\(kind))", deadline: 60)
            // Swift's backtracer reports a raise(SIGSEGV) and lets the program go on (its own choice, seen
            // without the signal watch too); every other crash ends the process by its signal.
            if !(kind == "raise" && backtracer.isEmpty) {
                #expect(
                    process.terminationReason == .uncaughtSignal && process.terminationStatus == signal,
                    "\(backtracer)\(kind): \(process.terminationReason) \(process.terminationStatus): \(errorText)")
            }
            #expect(!errorText.contains("stopped by"), "\(errorText)")
            if backtracer.isEmpty {
                #expect(errorText.contains("Program crashed"), "\(kind): \(errorText)")
            }
        }
    }

    @Test(
        "every signal that ends the process leaves no temporary file: 128 + the signal, one line naming it",
        arguments: endingSignals)
    func endingSignal(signal: Int32, name: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (process, _) = try MandelProcess.startAndWaitForProgress(
            InterruptTests.slowRenderOnOneWorker + [
                "--band-height", "4", "--progress", "-o", "big.png", "--trace", "t.json",
            ],
            in: folder)
        #expect(process.isRunning && contents(of: folder).count == 2, "\(contents(of: folder))")
        kill(process.processIdentifier, signal)
        let errorText = try MandelProcess.standardErrorToExit(
            of: process, waitingFor: "mandel to exit after signal \(signal)", deadline: 30)
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal, "\(errorText)")
        #expect(errorText.contains("stopped by \(name)") && !errorText.contains("Backtrac"), "\(errorText)")
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
    }

    @Test("the CPU time limit (ulimit -t, SIGXCPU from the kernel) stops the render cleanly: 152, nothing left")
    func cpuTimeLimit() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            InterruptTests.slowRender + ["--band-height", "4", "-o", "big.png"], in: folder,
            launch: .init(shellSetup: "ulimit -S -t 1"))
        #expect(result.status == 128 + SIGXCPU, "\(result.standardError)")
        #expect(result.firstErrorLine.contains("CPU time limit"), "\(result.standardError)")
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
    }

    @Test("a signal inherited as ignored stays ignored, whichever it is: the render finishes and is written")
    func inheritedIgnoredSignals() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ignored: [(Int32, String)] = [
            (SIGUSR1, "USR1"), (SIGUSR2, "USR2"), (SIGALRM, "ALRM"), (SIGTERM, "TERM"), (SIGINT, "INT"),
            (SIGVTALRM, "VTALRM"), (SIGPWR, "PWR"), (__libc_current_sigrtmin() + 3, "RTMIN+3"),
        ]
        // About 1.5 s on a free machine, to be under way when the bar appears at half a second (20,000
        // iterations had become 0.49 s).
        let (process, _) = try MandelProcess.startAndWaitForProgress(
            [
                "render", "--size", "600x600", "--center", "-0.1225,0.7449", "--zoom", "30", "--iterations", "60000",
                "--tile", "16", "--progress", "-o", "done.png",
            ], in: folder,
            launch: .init(shellSetup: "trap '' " + ignored.map(\.1).joined(separator: " ")))
        #expect(process.isRunning, "the render finished before the signals were sent")
        for (signal, _) in ignored { kill(process.processIdentifier, signal) }
        let errorText = String(
            decoding: try MandelProcess.readUntil(
                (process.standardError as! Pipe).fileHandleForReading, of: process,
                waitingFor: "mandel to finish despite ignored signals"
            ) { _ in false }, as: UTF8.self)
        try MandelProcess.waitForExit(process, waitingFor: "mandel to finish despite ignored signals")
        #expect(process.terminationStatus == 0, "\(errorText)")
        #expect(contents(of: folder) == ["done.png"], "\(contents(of: folder))")
    }

    @Test(
        "compare and sweep finishing within SIGTERM's grace say so, as render does: exit 0, a note, every output",
        arguments: [
            (["compare", "--strategies", "gcd", "--json", "out.json"], "the comparison"),
            (["sweep", "--workers", "1,2", "--json", "out.json"], "the sweep"),
        ])
    func terminatedWithinGrace(arguments: [String], work: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Half a second or more of runs after the header line, well inside a 60-second grace.
        let process = try MandelProcess.start(
            arguments + [
                "--size", "200x150", "--center", "-0.1225,0.7449", "--iterations", "20000", "--runs", "3",
                "--grace", "60",
            ], in: folder)
        let output = (process.standardOutput as! Pipe).fileHandleForReading
        _ = try MandelProcess.readUntil(output, of: process, waitingFor: "the header line of \(work)") {
            $0.contains(UInt8(ascii: "\n"))
        }
        #expect(process.isRunning, "\(work) finished before SIGTERM")
        process.terminate()
        _ = output.readDataToEndOfFile()
        let errorText = String(
            decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try MandelProcess.waitForExit(process, waitingFor: "mandel to exit after SIGTERM", deadline: 60)
        #expect(process.terminationStatus == 0, "\(errorText)")
        #expect(errorText.contains("terminated: finished \(work) within the grace period"), "\(errorText)")
        #expect(contents(of: folder) == ["out.json"], "\(contents(of: folder))")
    }
}

extension MandelProcess {
    /// Runs `mandel` and returns its standard output as bytes (a picture is not text).
    static func runData(_ arguments: [String]) throws -> Data {
        let process = try start(arguments)
        let output = try readUntil(
            (process.standardOutput as! Pipe).fileHandleForReading, of: process,
            waitingFor: "the output of mandel \(arguments.joined(separator: " "))"
        ) { _ in false }
        try waitForExit(process, waitingFor: "mandel \(arguments.joined(separator: " ")) to exit")
        return output
    }
}

@Suite("Reliability, round three: limits found before anything starts")
struct LimitClassTests {
    @Test("under an address-space limit a render runs at its speed: malloc's per-thread arenas no longer use it up")
    func addressSpaceLimit() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for strategy in ["gcd", "thread"] {
            let started = Date()
            // 400,000,000 bytes (dash's ulimit -v counts KiB). On the old code libdispatch retried
            // threads for 10–15 s in 2 runs of 3, and the thread strategy hung.
            let result = try MandelProcess.run(
                ["render", "--strategy", strategy, "--workers", "4", "-o", "a.png"], in: folder,
                launch: .init(shellSetup: "ulimit -v 390625"), deadline: 60)
            let seconds = Date().timeIntervalSince(started)
            #expect(result.status == 0, "\(strategy): \(result.standardError)")
            #expect(seconds < 8, "\(strategy): \(seconds) s for a render of about a second")
        }
    }

    @Test("thread stacks that cannot fit the address space are refused at once: 71, one line, nothing written")
    func threadStacksCounted() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--strategy", "thread", "--workers", "64", "-o", "a.png"], in: folder,
            launch: .init(shellSetup: "ulimit -v 200000"), deadline: 60)
        expectRefusal(result, status: 71, mentioning: "stacks of the 74 threads", leaving: folder)
    }

    @Test("a process limit that the process strategy's helpers would pass is found before compare's header")
    func processLimitBeforeHeader() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["compare", "--size", "64", "--runs", "1"], in: folder,
            launch: .init(shellSetup: "prlimit --pid $$ --nproc=20", asNobody: true), deadline: 60)
        expectRefusal(result, status: 71, mentioning: "cannot start the", leaving: folder)
        #expect(result.standardOutput.isEmpty, "the header came first: \(result.standardOutput)")
    }
}

@Suite("Reliability, round four: a cgroup's memory limit, at any level")
struct CgroupLimitTests {
    /// The cgroup v1 memory controller's mount point here, if it is writable (root, v1 or hybrid).
    static var memoryHierarchy: String? {
        let folder = "/sys/fs/cgroup/memory"
        return getuid() == 0 && FileManager.default.isWritableFile(atPath: folder + "/cgroup.procs") ? folder : nil
    }

    @Test(
        "a limit on the cgroup above the process's own is seen: a render that needs more is refused with 71",
        .enabled(if: memoryHierarchy != nil, "needs root and a cgroup v1 memory controller"))
    func limitAboveOwnCgroup() throws {
        let outer = Self.memoryHierarchy! + "/mandel-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: outer + "/task", withIntermediateDirectories: true)
        defer {
            // The process has exited; its cgroups can go.
            rmdir(outer + "/task")
            rmdir(outer)
        }
        try "300000000".write(toFile: outer + "/memory.limit_in_bytes", atomically: false, encoding: .utf8)
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 12000² × 3 bytes kept whole (--order centre): 412 MiB, more than the job's 286 MiB.
        let result = try MandelProcess.run(
            ["render", "--size", "12000x12000", "--order", "centre", "-o", "big.png"], in: folder,
            launch: MandelProcess.Launch(shellSetup: "echo $$ > \(outer)/task/cgroup.procs"))
        expectRefusal(result, status: 71, mentioning: "not enough memory", leaving: folder)
        // And one that fits is rendered there.
        let small = try MandelProcess.run(
            ["render", "--size", "400x300", "-o", "small.png"], in: folder,
            launch: MandelProcess.Launch(shellSetup: "echo $$ > \(outer)/task/cgroup.procs"))
        #expect(small.status == 0, "\(small.standardError)")
    }
}
