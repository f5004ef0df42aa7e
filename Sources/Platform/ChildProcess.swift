/// A child process started with `posix_spawn` (never `fork`: the parent has threads),
/// connected by two pipes: the parent writes to its standard input and reads its
/// standard output. Its standard error goes to /dev/null.
///
/// The child starts in a process group of its own, so that a terminal's Ctrl-C reaches
/// only the parent (which then closes the pipes), with every signal at its default and
/// none blocked. Descriptors are opened close-on-exec, so no other child inherits them.
package final class ChildProcess: @unchecked Sendable {
    // @unchecked: one thread at a time uses a child (the thread that serves it); `pid` is
    // immutable, and `closeInput`/`reap` are idempotent and called by that thread only.

    /// The child's process id.
    package let pid: pid_t
    private var input: Int32
    private let output: Int32
    private var status: Int32?
    /// The processor time the child used, over all its threads, once it is reaped; nil before.
    package private(set) var processorTime: CPUTime?

    /// Why a child could not be started.
    package struct SpawnError: Error, CustomStringConvertible {
        package let description: String
    }

    /// How a read ended.
    package enum ReadOutcome: Equatable {
        /// Every byte asked for arrived.
        case complete
        /// The child closed its output (exited, or died) before all of it.
        case closed
        /// Nothing arrived for the whole timeout.
        case timedOut
    }

    /// Starts `executable` with `arguments` (the first is the program's name) and `environment`.
    package init(executable: String, arguments: [String], environment: [String]) throws(SpawnError) {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard makePipe(&toChild, O_CLOEXEC) == 0 else { throw SpawnError(description: Self.error("pipe2")) }
        guard makePipe(&fromChild, O_CLOEXEC) == 0 else {
            let message = Self.error("pipe2")
            close(toChild[0])
            close(toChild[1])
            throw SpawnError(description: message)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        var child: pid_t = 0
        let code = Self.withCStrings(arguments) { argv in
            Self.withCStrings(environment) { envp in
                posix_spawn(&child, executable, &actions, &attributes, argv, envp)
            }
        }
        close(toChild[0])
        close(fromChild[1])
        guard code == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(code)))")
        }
        pid = child
        input = toChild[1]
        output = fromChild[0]
        Self.running.withLock { _ = $0.insert(child) }
    }

    /// The children started and not yet reaped: what the process sampler adds to the process's own figures.
    package static let running = Locked<Set<pid_t>>([])

    deinit {
        closeInput()
        close(output)
        if status == nil {
            kill(pid, SIGKILL)
            _ = reap()
        }
    }

    private static func error(_ call: String) -> String { "\(call): \(String(cString: strerror(errno)))" }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }

    /// Writes all of `bytes` to the child's standard input; false if the child has closed it
    /// (EPIPE: SIGPIPE must be ignored, as ``ignoreBrokenPipes()`` does).
    package func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(input, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Reads exactly `count` bytes into `buffer`, giving up when nothing has arrived for
    /// `timeoutNanoseconds` at a stretch.
    package func read(into buffer: UnsafeMutableRawPointer, count: Int, timeoutNanoseconds: UInt64) -> ReadOutcome {
        var offset = 0
        while offset < count {
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: (timeoutNanoseconds + 999_999) / 1_000_000)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .closed
            }
            if ready == 0 { return .timedOut }
            let got = Glibc.read(output, buffer + offset, count - offset)
            if got < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .closed
            }
            if got == 0 { return .closed }
            offset += got
        }
        return .complete
    }

    /// The processor time the child has used so far, over all its threads, read from `/proc`
    /// while it runs (in clock ticks, 10 ms each); nil once it is reaped or unreadable.
    package var processorTimeSoFar: CPUTime? {
        guard status == nil, let text = SystemFile.text("/proc/\(pid)/stat"),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command's name in parentheses: state (field 3), …, utime (14), stime (15).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return CPUTime(user: user / ticks, system: system / ticks)
    }

    /// Closes the child's standard input: a child that reads it sees the end and leaves.
    package func closeInput() {
        if input >= 0 {
            close(input)
            input = -1
        }
    }

    /// Sends `signal` to the child, unless it has been reaped (its pid may be another's by then).
    package func signal(_ signal: Int32) {
        if status == nil { kill(pid, signal) }
    }

    /// Waits for the child to end and returns its wait status (see `waitpid(2)`); its
    /// ``processorTime`` is then known (`wait4(2)` gives this child's usage, no other's).
    @discardableResult
    package func reap() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        var usage = rusage()
        while wait4(pid, &raw, 0, &usage) < 0 && errno == EINTR {}
        status = raw
        processorTime = CPUTime(usage)
        Self.running.withLock { _ = $0.remove(pid) }
        return raw
    }

    /// How the child ended, in words: `exited with status 3`, `killed by signal 9`.
    package static func describe(status: Int32) -> String {
        // WIFEXITED and friends are macros that Swift cannot import.
        let signal = status & 0x7F
        return signal == 0 ? "exited with status \((status >> 8) & 0xFF)" : "killed by signal \(signal)"
    }

    /// Makes a write to a pipe whose reader has gone fail with EPIPE rather than end the
    /// process (as mandel does from its start), unless SIGPIPE has a handler.
    package static func ignoreBrokenPipes() {
        var current = sigaction()
        sigaction(SIGPIPE, nil, &current)
        if current.__sigaction_handler.sa_handler == nil {
            Glibc.signal(SIGPIPE, SIG_IGN)
        }
    }

    /// A path that starts the program this process runs, for ``init(executable:arguments:environment:)``:
    /// `/proc/self/exe`. `posix_spawn`'s child opens it before its exec, while it still runs this
    /// program, so the kernel resolves it to the very file this process was started from, even once
    /// that file is deleted or replaced (a rebuild), where its name would start nothing, or another
    /// program. Without `/proc`, the program's name as this process was given it.
    package static var runningProgram: String {
        access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : CommandLine.arguments[0]
    }

    /// The program this process runs, as `/proc/self/exe` names it.
    package static var currentExecutable: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Asks the kernel to send this process `signal` when the thread that started it ends,
    /// and returns false if that parent is already gone (this process then has another).
    package static func endWithParent(expectedParent: pid_t, signal: Int32 = SIGKILL) -> Bool {
        _ = setParentDeathSignal(1, UInt(signal), 0, 0, 0)
        return getppid() == expectedParent
    }
}

// Glibc's module leaves out pipe2 (it needs _GNU_SOURCE) and prctl: both are plain C symbols.
// Pipes must be close-on-exec from birth: another thread's helper started between pipe()
// and fcntl() would inherit this one's ends and hold its connection open.
@_silgen_name("pipe2")
private func makePipe(_ descriptors: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// `prctl(PR_SET_PDEATHSIG = 1, signal, 0, 0, 0)`; prctl reads its arguments as unsigned longs.
@_silgen_name("prctl")
private func setParentDeathSignal(_ option: Int32, _ signal: UInt, _ a: UInt, _ b: UInt, _ c: UInt) -> Int32
