import Deadline
import Foundation
import ProcessTestSupport

/// The real `mandel helper`, fed bytes on its standard input as a parent would send them, under an
/// address-space limit, and what became of it.
struct HelperRun {
    let status: Int32
    /// Whether a signal ended it (a crash), rather than an exit.
    let signalled: Bool
    let output: [UInt8]
    let standardError: String

    /// Address space for a helper: an idle one maps about 95 MB, so this leaves it about 100 MB
    /// more, which its memory check reads as what it can have; an allocation beyond it fails,
    /// where mandel's checks should have refused it first.
    static let addressSpaceKilobytes = 200_000

    /// Starts the helper, writes `input`, closes its input and waits at most `seconds` for it.
    static func feed(_ input: [UInt8], seconds: Double = 30) throws -> HelperRun {
        let helper = Process()
        helper.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        helper.arguments = [
            "--default-signal", "/bin/sh", "-c", "ulimit -v \(addressSpaceKilobytes); exec \"$0\" \"$@\"",
            MandelProcess.executable.path, "helper", "--parent", "\(getpid())",
        ]
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        helper.standardInput = stdin
        helper.standardOutput = stdout
        helper.standardError = stderr
        try helper.run()
        let watchdog = MandelProcess.Watchdog(helper, seconds: seconds)
        let readers = DispatchGroup()
        let output = SharedValue(Data())
        let errors = SharedValue(Data())
        for (pipe, data) in [(stdout, output), (stderr, errors)] {
            DispatchQueue.global().async(group: readers) { data.set(pipe.fileHandleForReading.readDataToEndOfFile()) }
        }
        // A helper that refuses a frame stops reading: the rest of the input meets a closed pipe.
        let writer = Thread {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            // An error here is the helper gone before it read everything: what it did is the answer.
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        helper.waitUntilExit()
        _ = readers.wait(timeout: .now() + 5)
        if watchdog.disarm() {
            throw DeadlinePassed(waitingFor: "the helper to take \(input.count) bytes", seconds: seconds)
        }
        return HelperRun(
            status: helper.terminationStatus, signalled: helper.terminationReason == .uncaughtSignal,
            output: [UInt8](output.get()), standardError: String(decoding: errors.get(), as: UTF8.self))
    }

    /// The kinds of the frames the helper sent, in order (a frame cut short ends the list).
    var frameKinds: [UInt32] {
        var kinds: [UInt32] = []
        var offset = 0
        while offset + 8 <= output.count {
            let kind = output[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let length = output[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            guard offset + 8 + length <= output.count else { break }
            kinds.append(kind)
            offset += 8 + length
        }
        return kinds
    }

    /// The helper's exit was a refusal as documented: `status`, one line on standard error, and a
    /// `failed` frame last.
    func refused(with status: Int32) -> Bool {
        !signalled && self.status == status && standardError.hasPrefix("mandel helper: ")
            && standardError.split(separator: "\n").count == 1 && frameKinds.last == HelperWire.failed
    }
}
