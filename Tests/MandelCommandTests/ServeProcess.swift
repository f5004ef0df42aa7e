import Foundation
import ProcessTestSupport
import Testing

/// `mandel serve --port 0 …` as a child process: started, its first line read, its port known.
struct ServeProcess {
    let process: Process
    /// The first line of standard output: the URL.
    let firstLine: String
    let port: Int

    /// Starts `mandel serve --port 0` with `arguments` (`launch` and `environment` as
    /// ``MandelProcess/start(_:in:launch:environment:)``'s) and waits (at most `seconds`) for its first line.
    init(
        _ arguments: [String], launch: MandelProcess.Launch = .plain, environment: [String: String] = [:],
        deadline seconds: Double = 60
    ) throws {
        process = try MandelProcess.start(
            ["serve", "--port", "0"] + arguments, launch: launch, environment: environment)
        let stream = (process.standardOutput as! Pipe).fileHandleForReading
        let seen = try MandelProcess.readUntil(
            stream, of: process, waitingFor: "the first line of mandel serve \(arguments.joined(separator: " "))",
            deadline: seconds
        ) { $0.contains(UInt8(ascii: "\n")) }
        firstLine = String(decoding: seen, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        let prefix = "http://127.0.0.1:"
        let digits =
            firstLine.hasPrefix(prefix) && firstLine.hasSuffix("/") ? firstLine.dropFirst(prefix.count).dropLast() : ""
        guard let port = Int(digits), digits.allSatisfy(\.isNumber) else {
            process.terminate()
            throw HTTPFailure("mandel serve's first line is not its URL: '\(firstLine)'")
        }
        self.port = port
    }

    /// The `mandel helper` processes whose parent is the server, by pid.
    var helpers: Set<Int32> { Self.children(of: process.processIdentifier, named: "helper") }

    /// Sends `signal` and waits for the exit (at most 30 s); returns the seconds it took.
    func stop(with signal: Int32) throws -> Double {
        let sent = Date()
        kill(process.processIdentifier, signal)
        try MandelProcess.waitForExit(process, waitingFor: "mandel serve to exit after signal \(signal)", deadline: 30)
        return Date().timeIntervalSince(sent)
    }

    /// What the server wrote to standard error (once it has exited).
    var standardError: String {
        String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Live processes (not zombies) whose parent is `parent` and whose command line has the word `word`.
    static func children(of parent: Int32, named word: String) -> Set<Int32> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var found: Set<Int32> = []
        for entry in entries {
            guard let pid = Int32(entry), let status = processStatus(pid), status.parent == parent else { continue }
            let line = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            let words = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if words.contains(word) { found.insert(pid) }
        }
        return found
    }

    /// Whether `pid` is a process that has not ended (a zombie has ended).
    static func isAlive(_ pid: Int32) -> Bool { processStatus(pid) != nil }

    /// The parent of a live process, from `/proc/PID/stat` (fields after the name in parentheses); nil for a zombie.
    private static func processStatus(_ pid: Int32) -> (state: Character, parent: Int32)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let state = fields[0].first, state != "Z", state != "X", let parent = Int32(fields[1])
        else { return nil }
        return (state, parent)
    }
}
