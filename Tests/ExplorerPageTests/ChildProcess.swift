import Deadline
import Foundation
import Synchronization

/// A program the page's tests start (`mandel serve`, chromedriver), in a process group of its own,
/// with its standard output and error in files.
///
/// Whatever the program starts stays in its group (chromedriver's chromium and chromium's
/// renderers), so ``stop(grace:)`` ends them all, whatever state the test left them in. The
/// output goes to files rather than pipes: nobody has to read a pipe for the child not to
/// block, and a failing test can show what the child said.
final class ChildProcess: Sendable {
    /// What the test calls it in messages: "mandel serve", "chromedriver".
    let name: String
    let pid: pid_t
    /// The files its standard output and standard error go to.
    let outputPath: String
    let errorPath: String
    private let reaped = Mutex(false)

    /// Starts `executable` with `arguments`, its output in `folder`, every signal at its default
    /// action (a test runner may hand down ignored signals) and none blocked.
    init(_ executable: String, _ arguments: [String], name: String, folder: String) throws {
        self.name = name
        let stem = folder + "/" + name.replacing(" ", with: "-")
        outputPath = stem + ".out"
        errorPath = stem + ".err"

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var every = sigset_t()
        sigfillset(&every)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        let words = ([executable] + arguments).map { strdup($0) }
        defer { words.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, words + [nil], environ)
        guard status == 0 else {
            throw ChildFailure(
                description: "cannot start \(name) (\(executable)): \(String(cString: strerror(status)))")
        }
        pid = child
    }

    /// Whether it has exited (it stays a zombie, and its group id ours, until ``stop(grace:)`` reaps it).
    var hasExited: Bool {
        if reaped.withLock({ $0 }) { return true }
        var info = siginfo_t()
        // ECHILD: reaped already (not by us: nothing else here waits for it), so gone.
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return errno == ECHILD }
        return info._sifields._sigchld.si_pid == pid  // 0 while it runs (WNOHANG)
    }

    /// The last lines it wrote to standard error, for a failure's message.
    var errorTail: String {
        let text = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }

    /// Waits until what it wrote to standard output so far gives `match` a value, at most `seconds`.
    ///
    /// - Throws: ``DeadlinePassed`` after `seconds`, ``ChildFailure`` if it exits first.
    func output<Value>(
        waitingFor what: String, seconds: Double, _ match: (String) -> Value?
    ) async throws -> Value {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(seconds)
        while true {
            if let text = try? String(contentsOfFile: outputPath, encoding: .utf8), let value = match(text) {
                return value
            }
            if hasExited {
                throw ChildFailure(description: "\(name) exited before \(what); it said: \(errorTail)")
            }
            if clock.now >= end { throw DeadlinePassed(waitingFor: what, seconds: seconds) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Ends the program and its whole group: SIGTERM, up to `grace` seconds to exit, then SIGKILL
    /// to the group (chromium's processes outlive a chromedriver that is killed), and reaps it.
    /// Safe to call more than once; never throws, so that it runs in every outcome.
    func stop(grace: Double) async {
        guard !reaped.withLock({ $0 }) else { return }
        kill(-pid, SIGTERM)
        let clock = ContinuousClock()
        let end = clock.now + .seconds(grace)
        while !hasExited && clock.now < end {
            // Not `try`: a cancelled test still has to end its children; the loop then spins to the deadline.
            try? await Task.sleep(for: .milliseconds(20))
        }
        // The leader is a zombie or alive, so its pid (the group's id) cannot have been reused.
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped.withLock { $0 = true }
    }
}

/// A child that could not start or ended too soon.
struct ChildFailure: Error, CustomStringConvertible {
    let description: String
}
