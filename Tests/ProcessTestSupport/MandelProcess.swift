import Deadline
package import Foundation
import Synchronization
package import Testing

/// The built `mandel` binary, run as a child process the way a user runs it.
package struct MandelProcess {
    /// `mandel` sits beside the test bundle in the build folder.
    package static let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        .deletingLastPathComponent().appendingPathComponent("mandel")

    package struct Result {
        package let status: Int32
        package let standardOutput: String
        package let standardError: String

        package init(status: Int32, standardOutput: String, standardError: String) {
            (self.status, self.standardOutput, self.standardError) = (status, standardOutput, standardError)
        }

        /// The first line of standard error.
        package var firstErrorLine: String { standardError.split(separator: "\n").first.map(String.init) ?? "" }
    }

    /// How the child starts.
    package struct Launch {
        /// Shell commands run before `mandel` (`ulimit -n 8`): the child runs through `/bin/sh`.
        package var shellSetup: String?
        /// Run as an unprivileged user, whom limits bind (root is exempt from some): a user id of
        /// its own for each launch (``unprivilegedUser()``), so that a limit on a user's threads
        /// (`ulimit -u`, which counts every process of the user) counts this run's alone, not
        /// those of another test running as the same user meanwhile.
        package var asNobody = false
        /// A file to connect to standard output instead of a pipe.
        package var standardOutputPath: String?

        package static let plain = Launch()

        package init(shellSetup: String? = nil, asNobody: Bool = false, standardOutputPath: String? = nil) {
            self.shellSetup = shellSetup
            self.asNobody = asNobody
            self.standardOutputPath = standardOutputPath
        }
    }

    /// How long a test waits for one run of `mandel`: the longest run in the suite (a compare of
    /// every strategy) takes a few seconds alone and tens on a loaded machine.
    package static let deadlineSeconds = 120.0

    /// Runs `mandel` with `arguments` in `folder` and waits for it, at most `seconds`: then it is
    /// killed and ``DeadlinePassed`` thrown, naming the command.
    package static func run(
        _ arguments: [String], in folder: String? = nil, launch: Launch = .plain,
        environment: [String: String] = [:], deadline seconds: Double = deadlineSeconds
    ) throws -> Result {
        let process = try start(arguments, in: folder, launch: launch, environment: environment)
        let watchdog = Watchdog(process, seconds: seconds)
        let outData = (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        let errData = (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if watchdog.disarm() {
            throw DeadlinePassed(waitingFor: "mandel \(arguments.joined(separator: " ")) to exit", seconds: seconds)
        }
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
    }

    /// Starts `mandel` (whose arguments must include `--progress`) and returns once the
    /// first progress line has appeared on standard error, that is, once the render is
    /// under way and the signal handlers are installed, with what standard error had said so far.
    package static func startAndWaitForProgress(
        _ arguments: [String], in folder: String, launch: Launch = .plain, deadline seconds: Double = deadlineSeconds
    ) throws -> (Process, String) {
        let process = try start(arguments, in: folder, launch: launch)
        let seen = try readUntil(
            (process.standardError as! Pipe).fileHandleForReading, of: process,
            waitingFor: "a progress line from mandel \(arguments.joined(separator: " "))", deadline: seconds
        ) { String(decoding: $0, as: UTF8.self).contains("tiles") }
        return (process, String(decoding: seen, as: UTF8.self))
    }

    /// Reads `stream` of a started `process` until what came satisfies `done` or the stream
    /// ends, at most `seconds`: then the process is killed and ``DeadlinePassed`` thrown.
    package static func readUntil(
        _ stream: FileHandle, of process: Process, waitingFor what: String, deadline seconds: Double = deadlineSeconds,
        _ done: (Data) -> Bool
    ) throws -> Data {
        let watchdog = Watchdog(process, seconds: seconds)
        var seen = Data()
        while !done(seen) {
            let chunk = stream.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        if watchdog.disarm() { throw DeadlinePassed(waitingFor: what, seconds: seconds) }
        return seen
    }

    /// Reads a started `mandel`'s standard error to its end and waits for it to exit, at most `seconds` each.
    package static func standardErrorToExit(
        of process: Process, waitingFor what: String, deadline seconds: Double = deadlineSeconds
    ) throws -> String {
        let text = try readUntil(
            (process.standardError as! Pipe).fileHandleForReading, of: process, waitingFor: what, deadline: seconds
        ) { _ in false }
        try waitForExit(process, waitingFor: what, deadline: seconds)
        return String(decoding: text, as: UTF8.self)
    }

    /// Waits for a started `mandel` to exit, at most `seconds`: then it is killed and
    /// ``DeadlinePassed`` thrown, saying what the test waited for.
    package static func waitForExit(
        _ process: Process, waitingFor what: String, deadline seconds: Double = deadlineSeconds
    ) throws {
        let watchdog = Watchdog(process, seconds: seconds)
        process.waitUntilExit()
        if watchdog.disarm() { throw DeadlinePassed(waitingFor: what, seconds: seconds) }
    }

    /// Kills a child that outlives its deadline (SIGKILL: it may be ignoring or handling the
    /// others, which is what some tests check), so that whatever waits for it returns.
    package final class Watchdog: @unchecked Sendable {
        // @unchecked: the work item is only scheduled and cancelled, which Dispatch makes safe.
        private final class Fired: Sendable { let value = Mutex(false) }
        private let fired = Fired()
        private let item: DispatchWorkItem

        package init(_ process: Process, seconds: Double) {
            let fired = self.fired
            let pid = process.processIdentifier
            // Weak: a cancelled work item stays queued until its deadline, and a strong capture
            // would keep the process and its two pipes open that long (120 s): a suite of
            // hundreds of runs then held over a thousand pipes, and corelibs' Process.run, which
            // lists /proc/self/fd, crashed reading past the end of that listing.
            item = DispatchWorkItem { [weak process] in
                guard let process, process.isRunning else { return }
                fired.value.withLock { $0 = true }
                kill(pid, SIGKILL)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
        }

        /// Stops watching; returns whether the deadline had passed and the child was killed.
        package func disarm() -> Bool {
            item.cancel()
            return fired.value.withLock { $0 }
        }
    }

    /// Starts `mandel` with pipes for its output, and `environment` added to its environment, without waiting.
    ///
    /// Every signal starts at its default action (`env --default-signal`): a test run
    /// from a script or under `nohup` may otherwise hand down ignored signals, which
    /// mandel leaves ignored on purpose.
    package static func start(
        _ arguments: [String], in folder: String? = nil, launch: Launch = .plain, environment: [String: String] = [:]
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let settings = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var command = ["--default-signal"] + settings
        if launch.asNobody {
            let user = unprivilegedUser()
            command =
                ["setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups", "env", "--default-signal"]
                + settings
        }
        let binary = launch.asNobody ? try sharedCopy().path : executable.path
        if let setup = launch.shellSetup {
            command += ["/bin/sh", "-c", setup + "; exec \"$0\" \"$@\"", binary] + arguments
        } else {
            command += [binary] + arguments
        }
        process.arguments = command
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        if let path = launch.standardOutputPath {
            process.standardOutput = FileHandle(forWritingAtPath: path)
        } else {
            process.standardOutput = Pipe()
        }
        process.standardError = Pipe()
        try process.run()
        return process
    }

    /// A copy of the binary that any user can run: a fresh clone's build folder may sit
    /// inside a folder only its owner can enter.
    package static func sharedCopy() throws -> URL {
        try copyLock.withLock {
            if let copy = sharedCopyURL { return copy }
            let folder = "/tmp/mandel-shared-\(getpid())"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            chmod(folder, 0o755)
            let copy = URL(fileURLWithPath: folder + "/mandel")
            try? FileManager.default.removeItem(at: copy)
            // Copied by cp, not in this process: a descriptor this process holds open for writing
            // is inherited by any child another test starts meanwhile, and the copy's exec then
            // fails with ETXTBSY ("Text file busy") for as long as that child lives.
            let cp = Process()
            cp.executableURL = URL(fileURLWithPath: "/bin/cp")
            cp.arguments = [executable.path, copy.path]
            try cp.run()
            cp.waitUntilExit()
            guard cp.terminationStatus == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: copy.path])
            }
            chmod(copy.path, 0o755)
            sharedCopyURL = copy
            return copy
        }
    }

    nonisolated(unsafe) private static var sharedCopyURL: URL?
    private static let copyLock = NSLock()
}

/// A fresh empty folder for one test, that any user may write into.
package func temporaryFolder() -> String {
    let path = NSTemporaryDirectory() + "mandel-cli-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    chmod(path, 0o777)
    return path
}

/// The JSON object in the file at `path`.
package func jsonObject(atPath path: String) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
}

/// The names in `folder`, hidden ones too.
package func contents(of folder: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: folder).sorted()) ?? []
}

/// Checks a refusal: the exit code, the first line of standard error, no crash, and nothing left in `folder`.
package func expectRefusal(
    _ result: MandelProcess.Result, status: Int32, mentioning mention: String, leaving folder: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(result.status == status, "exit \(result.status): \(result.standardError)", sourceLocation: sourceLocation)
    #expect(result.firstErrorLine.contains(mention), "\(result.firstErrorLine)", sourceLocation: sourceLocation)
    #expect(
        !result.standardError.contains("Fatal error") && !result.standardError.contains("Backtrac"),
        sourceLocation: sourceLocation)
    if let folder {
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))", sourceLocation: sourceLocation)
    }
}

/// A user id no other process has: 60,000 and up, one more each call (setpriv takes any id; the
/// test folders are open to all). Shared by every test of the process.
package func unprivilegedUser() -> Int {
    unprivilegedUsers.withLock { next in
        defer { next = next == 64_999 ? 60_000 : next + 1 }
        return next
    }
}

private let unprivilegedUsers = Mutex(60_000)
