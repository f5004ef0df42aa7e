import Deadline
package import Foundation

/// `mandel` started by `posix_spawn` and reaped by `wait4`, so that a test knows the processor time
/// it spent to its very end: Foundation's `Process` reaps its children itself and drops their usage.
///
/// Standard input and output are `/dev/null`; standard error is a pipe the test reads. Every signal
/// starts at its default action, as with ``MandelProcess/start(_:in:launch:environment:)``.
package final class SpawnedMandel {
    /// The child's process id: reaped only by ``waitForExit(waitingFor:deadline:)``.
    package let pid: pid_t
    private let standardError: Int32
    private var reaped = false

    /// How a spawned `mandel` ended.
    package struct Exit {
        /// The exit status (a code, or 128 + the signal that killed it).
        package let status: Int32
        /// Processor seconds (user and system) of the process and the children it reaped, start to end.
        package let processorSeconds: Double
    }

    /// Starts `mandel` with `arguments`, whose paths must be absolute (it runs in the test process's folder).
    /// With `aheadOfOtherTests`, and where this process may raise a priority (as root), it starts at
    /// nice −10 (through `nice`, which execs it under the same process id), every thread of it too,
    /// so that the other tests of a parallel suite do not take its processors: for a test that times
    /// what mandel does, not how busy the machine around it is.
    package init(_ arguments: [String], aheadOfOtherTests: Bool = false) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        // Close-on-exec, lest another test's child hold the write end (corelibs' Process closes what it
        // does not pass on; a child spawned between pipe and fcntl by anything else would keep it).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var everySignal = sigset_t()
        var noSignal = sigset_t()
        sigfillset(&everySignal)
        sigemptyset(&noSignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let mandel = MandelProcess.executable.path
        let raised = aheadOfOtherTests && geteuid() == 0 && access("/usr/bin/nice", X_OK) == 0
        let path = raised ? "/usr/bin/nice" : mandel
        let argv = ((raised ? [path, "-n", "-10", mandel] : [mandel]) + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        close(ends[1])
        guard spawned == 0 else {
            close(ends[0])
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL)
        }
        pid = child
        standardError = ends[0]
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(standardError)
    }

    /// Reads standard error until it contains `text`, at most `seconds`: then the child is killed
    /// and ``DeadlinePassed`` thrown. Returns what it read.
    package func readStandardError(
        until text: String, deadline seconds: Double = MandelProcess.deadlineSeconds
    )
        throws -> String
    {
        let end = Date().addingTimeInterval(seconds)
        var seen = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: seen, as: UTF8.self).contains(text) {
            var descriptor = pollfd(fd: standardError, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, end.timeIntervalSinceNow) * 1000)
            guard left > 0, poll(&descriptor, 1, left) > 0 else { break }
            let count = read(standardError, &buffer, buffer.count)
            if count <= 0 { break }
            seen.append(contentsOf: buffer[..<count])
        }
        let read = String(decoding: seen, as: UTF8.self)
        guard read.contains(text) else {
            kill(pid, SIGKILL)
            throw DeadlinePassed(
                waitingFor: "'\(text)' on mandel's standard error (it said: \(read))", seconds: seconds)
        }
        return read
    }

    /// Reads standard error to its end (call after the exit).
    package func remainingStandardError() -> String {
        var seen = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = read(standardError, &buffer, buffer.count), count > 0 {
            seen.append(contentsOf: buffer[..<count])
        }
        return String(decoding: seen, as: UTF8.self)
    }

    /// Processor seconds the process has spent so far, its finished threads and reaped children
    /// included, and those of its children still running (a `process` render's helpers): read from
    /// /proc, to the clock tick (10 ms).
    package func processorSeconds() -> Double {
        var ticks = Self.ticks(of: pid)
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ pid_t($0) }) { ticks += Self.ticks(of: child) }
        }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Processor seconds of any process `pid` so far, its finished threads and reaped children included
    /// (not its children still running): read from /proc, to the clock tick (10 ms).
    package static func processorSeconds(of pid: pid_t) -> Double {
        Double(ticks(of: pid)) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// utime + stime + cutime + cstime of `process` (fields 14 to 17 of /proc/PID/stat), in clock
    /// ticks; 0 for one that is gone.
    private static func ticks(of process: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
            let nameEnd = stat.lastIndex(of: ")")
        else { return 0 }
        // After the name: the state (field 3), then numbers from field 4, so field N is number N − 4.
        let numbers = stat[stat.index(after: nameEnd)...].split(separator: " ").dropFirst().compactMap { Int($0) }
        guard numbers.count > 13 else { return 0 }
        return numbers[10] + numbers[11] + numbers[12] + numbers[13]
    }

    /// Waits for the exit, at most `seconds` (then kills the child and throws ``DeadlinePassed``).
    package func waitForExit(
        waitingFor what: String, deadline seconds: Double = MandelProcess.deadlineSeconds
    )
        throws -> Exit
    {
        let end = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, WNOHANG, &usage) == 0 {
            if Date() > end {
                kill(pid, SIGKILL)
                wait4(pid, &status, 0, &usage)
                reaped = true
                throw DeadlinePassed(waitingFor: what, seconds: seconds)
            }
            usleep(500)
        }
        reaped = true
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        // Exited: the code; killed by a signal: 128 + its number, as a shell says.
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f
        return Exit(status: code, processorSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }
}
