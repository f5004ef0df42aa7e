/// What the operating system still allows this process: descriptors, threads and memory.
///
/// Each answer is read at the moment it is asked (other processes share the
/// same limits), and nil means "no limit that can be read".
public enum ResourceLimits {
    // MARK: - File descriptors

    /// The descriptors this process may have open at once (the soft `RLIMIT_NOFILE`), after
    /// raising it towards the hard limit if it is below `wanted`.
    public static func fileDescriptors(raisingTo wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(resource(RLIMIT_NOFILE), &limit) == 0 else { return wanted }
        if limit.rlim_cur != unlimited, Int(clamping: limit.rlim_cur) < wanted {
            let raised = limit.rlim_max == unlimited ? rlim_t(wanted) : min(limit.rlim_max, rlim_t(wanted))
            var higher = limit
            higher.rlim_cur = raised
            if setrlimit(resource(RLIMIT_NOFILE), &higher) == 0 { limit = higher }
        }
        return limit.rlim_cur == unlimited ? Int.max : Int(clamping: limit.rlim_cur)
    }

    /// The descriptors open in this process now.
    public static func openFileDescriptors() -> Int? {
        guard let descriptors = SystemFile.names(in: "/proc/self/fd") else { return nil }
        return descriptors.count - 1  // the descriptor of the listing itself
    }

    // MARK: - Threads

    /// How many more threads this process can start now, or nil when nothing limits it
    /// that can be read: the user's process limit (`ulimit -u`, which counts threads and
    /// does not bind root), the cgroup's `pids.max` and the system's `threads-max`.
    public static func threadsAvailable() -> Int? {
        var answers: [Int] = []
        if geteuid() != 0, let perUser = userThreadLimit() {
            answers.append(perUser - threadsOfUser(getuid()))
        }
        if let maximum = SystemFile.text("/sys/fs/cgroup/pids.max").flatMap({ Int($0.trimmed) }),
            let current = SystemFile.text("/sys/fs/cgroup/pids.current").flatMap({ Int($0.trimmed) })
        {
            answers.append(maximum - current)
        }
        // /proc/loadavg: "0.00 0.01 0.05 1/123 4567": runnable/total threads in the system.
        if let maximum = SystemFile.text("/proc/sys/kernel/threads-max").flatMap({ Int($0.trimmed) }),
            let total = SystemFile.text("/proc/loadavg")?.split(separator: " ").dropFirst(3).first?
                .split(separator: "/").last.flatMap({ Int($0) })
        {
            answers.append(maximum - total)
        }
        return answers.min().map { max(0, $0) }
    }

    /// The soft `RLIMIT_NPROC`, raised to the hard limit first; nil if unlimited.
    private static func userThreadLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(resource(userProcessLimit), &limit) == 0 else { return nil }
        if limit.rlim_cur != limit.rlim_max {
            var higher = limit
            higher.rlim_cur = limit.rlim_max
            if setrlimit(resource(userProcessLimit), &higher) == 0 { limit = higher }
        }
        return limit.rlim_cur == unlimited ? nil : Int(clamping: limit.rlim_cur)
    }

    /// The threads of every process whose real user is `user`: what `RLIMIT_NPROC` counts.
    private static func threadsOfUser(_ user: uid_t) -> Int {
        var total = 0
        for name in SystemFile.names(in: "/proc") ?? [] {
            guard name.first?.isNumber == true, let status = SystemFile.text("/proc/\(name)/status"),
                let uid = SystemFile.field("Uid", in: status)?.split(whereSeparator: \.isWhitespace).first,
                uid_t(uid) == user
            else { continue }
            total += SystemFile.field("Threads", in: status).flatMap { Int($0) } ?? 1
        }
        return total
    }

    // MARK: - Memory

    /// Bytes this process can still allocate, or nil when nothing limits it that can be
    /// read: its address-space and data limits (`ulimit -v`, `ulimit -d`), the room its cgroups
    /// leave (v2 and v1, its own and every one above it: ``CgroupMemory``), and the memory and
    /// swap the system has available.
    public static func memoryAvailable() -> Int? {
        var answers: [Int] = []
        func kilobytes(_ key: String, in text: String) -> Int? {
            SystemFile.field(key, in: text)?.split(separator: " ").first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        // /proc/self/status only where a limit needs it: the kernel builds the whole file at each
        // read (the memory map's sizes among it), and the process strategy's helpers ask before every tile.
        var status: String?
        for (limitName, usedKey) in [(RLIMIT_AS, "VmSize"), (RLIMIT_DATA, "VmData")] {
            var limit = rlimit()
            guard getrlimit(resource(limitName), &limit) == 0, limit.rlim_cur != unlimited else { continue }
            let text = status ?? SystemFile.text("/proc/self/status") ?? ""
            status = text
            if let used = kilobytes(usedKey, in: text) { answers.append(Int(clamping: limit.rlim_cur) - used) }
        }
        if let room = CgroupMemory.room() { answers.append(room) }
        if let info = SystemFile.text("/proc/meminfo"), let available = kilobytes("MemAvailable", in: info) {
            answers.append(available + (kilobytes("SwapFree", in: info) ?? 0))
        }
        return answers.min().map { max(0, $0) }
    }

    /// Bytes of address space this process may still map under its address-space limit
    /// (`ulimit -v`), or nil when it has none. Every thread's stack is mapped whole, and so is
    /// each malloc arena's heap, whether or not it is ever touched.
    public static func addressSpaceAvailable() -> Int? {
        var limit = rlimit()
        guard getrlimit(resource(RLIMIT_AS), &limit) == 0, limit.rlim_cur != unlimited else { return nil }
        let status = SystemFile.text("/proc/self/status") ?? ""
        let used = SystemFile.field("VmSize", in: status)?.split(separator: " ").first.flatMap { Int($0) } ?? 0
        return max(0, Int(clamping: limit.rlim_cur) - used * 1024)
    }

    /// The address space a new thread's stack takes: glibc maps the soft stack limit
    /// (`ulimit -s`), or 8 MiB when it is unlimited, and a guard page.
    public static var threadStackBytes: Int {
        var limit = rlimit()
        let stack =
            getrlimit(resource(RLIMIT_STACK), &limit) == 0 && limit.rlim_cur != unlimited
            ? Int(clamping: limit.rlim_cur) : 8 << 20
        return stack + Int(getpagesize())
    }

    // MARK: - Processor time

    /// The CPU time limit in seconds (`ulimit -t`) when its soft value is its hard one, so that
    /// the kernel's first word at the limit is SIGKILL, with no SIGXCPU before it; nil otherwise.
    public static var processorSecondsWithoutWarning: Int? {
        var limit = rlimit()
        guard getrlimit(resource(RLIMIT_CPU), &limit) == 0, limit.rlim_max != unlimited,
            limit.rlim_cur >= limit.rlim_max
        else { return nil }
        return Int(clamping: limit.rlim_max)
    }

    /// `RLIM_INFINITY`, which Swift imports as a literal it cannot fit in `rlim_t`.
    private static let unlimited = rlim_t.max

    #if os(Linux)
        /// `RLIMIT_NPROC`, which Glibc's module spells `__RLIMIT_NPROC` and does not export.
        private static let userProcessLimit = __rlimit_resource(rawValue: 6)
        private static func resource(_ value: __rlimit_resource) -> __rlimit_resource_t {
            __rlimit_resource_t(value.rawValue)
        }
    #else
        private static let userProcessLimit = RLIMIT_NPROC
        private static func resource(_ value: Int32) -> Int32 { value }
    #endif
}

extension StringProtocol {
    /// Without leading and trailing white space.
    var trimmed: SubSequence {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}
