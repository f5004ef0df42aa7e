import Foundation

/// The built `mandel` binary, run as a child process the way a user runs it.
struct MandelProcess {
    /// `mandel` sits beside the test bundle in the build folder.
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        .deletingLastPathComponent().appendingPathComponent("mandel")

    struct Result {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// Runs `mandel` with `arguments` in `folder` and waits for it.
    static func run(_ arguments: [String], in folder: String? = nil, shellSetup: String? = nil) throws -> Result {
        let process = try start(arguments, in: folder, shellSetup: shellSetup)
        let output = process.standardOutput as! Pipe
        let error = process.standardError as! Pipe
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
    }

    /// Starts `mandel` (whose arguments must include `--progress`) and returns once the
    /// progress bar has appeared on standard error, that is, once the render is under way
    /// and the signal handlers are installed, with what standard error had said so far.
    static func startAndWaitForProgress(_ arguments: [String], in folder: String) throws -> (Process, String) {
        let process = try start(arguments, in: folder)
        let errors = (process.standardError as! Pipe).fileHandleForReading
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("tiles") {
            let chunk = errors.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        return (process, String(decoding: seen, as: UTF8.self))
    }

    /// Starts `mandel` with pipes for its output, without waiting; with `shellSetup`,
    /// through `/bin/sh`, which runs those commands (`ulimit`, `trap`) and then execs `mandel`.
    static func start(_ arguments: [String], in folder: String? = nil, shellSetup: String? = nil) throws -> Process {
        let process = Process()
        if let shellSetup {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shellSetup + "; exec \"$0\" \"$@\"", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        return process
    }
}

/// A fresh empty folder for one test.
func temporaryFolder() -> String {
    let path = NSTemporaryDirectory() + "mandel-cli-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The names in `folder`.
func contents(of folder: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: folder).sorted()) ?? []
}
