#if canImport(Glibc)
import Glibc
#endif

/// Processor time this process has used, from `getrusage`.
public struct CPUTime: Sendable {
    /// Seconds in user mode, over all threads.
    public var user: Double
    /// Seconds in the kernel, over all threads.
    public var system: Double

    /// User plus system seconds.
    public var total: Double { user + system }

    /// The process's usage so far.
    public static func now() -> CPUTime {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return CPUTime(user: seconds(usage.ru_utime), system: seconds(usage.ru_stime))
    }

    /// The usage between `earlier` and this reading.
    public func since(_ earlier: CPUTime) -> CPUTime {
        CPUTime(user: user - earlier.user, system: system - earlier.system)
    }
}
