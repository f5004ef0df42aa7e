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

    /// Creates a usage from its two parts.
    public init(user: Double, system: Double) {
        self.user = user
        self.system = system
    }

    /// The process's usage so far.
    public static func now() -> CPUTime { usage(of: RUSAGE_SELF.rawValue) }

    /// The sum of two usages.
    public func adding(_ other: CPUTime) -> CPUTime {
        CPUTime(user: user + other.user, system: system + other.system)
    }

    /// The calling thread's usage so far (Linux's `RUSAGE_THREAD`).
    public static func currentThread() -> CPUTime {
        usage(of: 1)  // RUSAGE_THREAD, which Glibc's module leaves out (it needs _GNU_SOURCE)
    }

    private static func usage(of who: Int32) -> CPUTime {
        var usage = rusage()
        getrusage(__rusage_who_t(who), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return CPUTime(user: seconds(usage.ru_utime), system: seconds(usage.ru_stime))
    }

    /// The usage between `earlier` and this reading.
    public func since(_ earlier: CPUTime) -> CPUTime {
        CPUTime(user: user - earlier.user, system: system - earlier.system)
    }
}
