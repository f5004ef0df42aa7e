import Foundation

/// The process's threads and resident memory at one moment, read from `/proc/self`.
public struct ProcessSnapshot: Encodable, Sendable, Equatable {
    /// Threads alive in the process.
    public let threads: Int
    /// Resident memory in bytes.
    public let residentBytes: Int

    /// Reads the current values (0 where `/proc` cannot be read).
    public static func now() -> ProcessSnapshot {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
        let pages = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?
            .split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return ProcessSnapshot(threads: threads, residentBytes: pages * Int(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// The most resident memory the process has had so far, in bytes (`getrusage`'s `ru_maxrss`).
    public static var peakResidentBytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}

/// What a measurement did to the process: the evidence that no thread or memory leaks across runs.
public struct ProcessGrowth: Encodable, Sendable {
    /// After the warm-up round.
    public let afterWarmup: ProcessSnapshot
    /// After the last counted run.
    public let atEnd: ProcessSnapshot

    /// Creates the record.
    public init(afterWarmup: ProcessSnapshot, atEnd: ProcessSnapshot) {
        self.afterWarmup = afterWarmup
        self.atEnd = atEnd
    }
}
