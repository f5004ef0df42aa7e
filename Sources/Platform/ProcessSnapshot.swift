/// The process's threads and resident memory at one moment.
public struct ProcessSnapshot: Encodable, Sendable, Equatable {
    /// Threads alive in the process.
    public let threads: Int
    /// Resident memory in bytes.
    public let residentBytes: Int

    public init(threads: Int, residentBytes: Int) {
        self.threads = threads
        self.residentBytes = residentBytes
    }

    /// Reads the current values from `/proc/self/status` (0 where it cannot be read).
    public static func now() -> ProcessSnapshot {
        let status = SystemFile.text("/proc/self/status") ?? ""
        let threads = SystemFile.field("Threads", in: status).flatMap { Int($0) } ?? 0
        // "VmRSS:   12345 kB"
        let resident = SystemFile.field("VmRSS", in: status)?.split(separator: " ").first.flatMap { Int($0) } ?? 0
        return ProcessSnapshot(threads: threads, residentBytes: resident * 1024)
    }

    /// The most resident memory the process has had so far, in bytes: `/proc/self/status`'s VmHWM,
    /// which belongs to the program this process runs. Linux's `ru_maxrss` keeps the largest of
    /// that and the high-water mark of whatever the process ran before `exec` (a `mandel` started
    /// by a 300 MB process said 313 MiB for a 64×48 picture); it is read where there is no `/proc`.
    public static var peakResidentBytes: Int {
        if let status = SystemFile.text("/proc/self/status"),
            let kilobytes = SystemFile.field("VmHWM", in: status)?.split(separator: " ").first.flatMap({ Int($0) })
        {
            return kilobytes * 1024
        }
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage.ru_maxrss * 1024
    }
}
