/// `/proc/self/stat`, kept open and re-read from the start: the cheapest way to sample the
/// process's thread count and resident memory many times a second (about 10 µs a reading).
public final class ProcessStat {
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1024)
    private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Opens the file; nil where there is no `/proc`.
    public init?() {
        descriptor = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }

    /// The process's threads and resident memory now, with those of the helper processes it
    /// has started and not yet reaped (``ChildProcess``), or nil if the file cannot be read.
    public func read() -> ProcessSnapshot? {
        guard let own = Self.parse(descriptor, into: &buffer, pageSize: pageSize) else { return nil }
        let children = ChildProcess.running.withLock { $0 }
        guard !children.isEmpty else { return own }
        var threads = own.threads
        var residentBytes = own.residentBytes
        for child in children {
            let file = open("/proc/\(child)/stat", O_RDONLY | O_CLOEXEC)
            guard file >= 0 else { continue }
            defer { close(file) }
            if let snapshot = Self.parse(file, into: &buffer, pageSize: pageSize) {
                threads += snapshot.threads
                residentBytes += snapshot.residentBytes
            }
        }
        return ProcessSnapshot(threads: threads, residentBytes: residentBytes)
    }

    /// The threads and resident memory in the `stat` file open as `descriptor`.
    private static func parse(_ descriptor: Int32, into buffer: inout [UInt8], pageSize: Int) -> ProcessSnapshot? {
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        // "pid (comm) state ppid …": the command may hold spaces and parentheses, so fields are
        // counted from the last ')'. After it, field 3 is the state; 20 is num_threads, 24 is rss in pages.
        guard let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        var field = 2
        var value = 0
        var threads = 0
        var pages = 0
        for byte in buffer[(close + 1)..<count] {
            if byte == UInt8(ascii: " ") {
                if field == 20 { threads = value }
                if field == 24 {
                    pages = value
                    break
                }
                field += 1
                value = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                value = value &* 10 &+ Int(byte - UInt8(ascii: "0"))
            }
        }
        return ProcessSnapshot(threads: threads, residentBytes: pages * pageSize)
    }

    /// How many of the process's threads are running or ready to run (state `R` in
    /// `/proc/self/task/*/stat`), not counting the calling thread nor the instruments'
    /// (``SystemThread/instrumentName``).
    public static func runnableThreads() -> Int {
        var runnable = 0
        for name in SystemFile.names(in: "/proc/self/task") ?? [] {
            guard Int(name) != nil,
                let stat = SystemFile.text("/proc/self/task/\(name)/stat"),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let isInstrument = stat.contains("(\(SystemThread.instrumentName))")
            if !isInstrument && stat[stat.index(after: close)...].dropFirst().first == "R" { runnable += 1 }
        }
        // The calling thread is running as it reads.
        return max(runnable - 1, 0)
    }
}

/// A plain system thread for the process's own instruments, which must not borrow a
/// thread from any mechanism they measure (a GCD pool thread, a task executor).
public enum SystemThread {
    /// The name every instrument's thread has, so that counts of the render's threads can leave them out.
    public static let instrumentName = "mandel-probe"

    /// Starts `body` on a new detached thread named ``instrumentName``; false if the system would not
    /// start one (``lastFailure`` then holds `pthread_create`'s code).
    public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        let status = pthread_create(
            &thread, nil,
            { context in
                SystemThread.nameCallingThread()
                Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            lastFailureCode.withLock { $0 = status }
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// The calling thread's identity, to tell threads apart.
    public static var current: UInt { UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))) }

    private static let lastFailureCode = Locked<Int32>(0)

    /// `pthread_create`'s code the last time ``start(_:)`` failed; 0 if it never has.
    public static var lastFailure: Int32 { lastFailureCode.withLock { $0 } }

    /// Sleeps the calling thread for `nanoseconds`, resuming the sleep after a signal interrupts it.
    public static func sleep(nanoseconds: UInt64) {
        var pause = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&pause, &remaining) != 0 && errno == EINTR { pause = remaining }
    }

    /// Names the calling thread ``instrumentName`` (`pthread_setname_np` is not visible from Swift here).
    static func nameCallingThread() {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = Array(instrumentName.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }
}
