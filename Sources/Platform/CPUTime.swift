/// Processor time used so far, from `getrusage`.
public struct CPUTime: Sendable, Equatable {
    /// Seconds in user mode.
    public var user: Double
    /// Seconds in the kernel.
    public var system: Double

    /// User plus system seconds.
    public var total: Double { user + system }

    public init(user: Double, system: Double) {
        self.user = user
        self.system = system
    }

    /// No time at all.
    public static let zero = CPUTime(user: 0, system: 0)

    /// The whole process's usage so far, over all its threads.
    public static func now() -> CPUTime { usage(of: RUSAGE_SELF.rawValue) }

    /// The calling thread's usage so far.
    public static func currentThread() -> CPUTime {
        #if os(Linux)
            // RUSAGE_THREAD, which Glibc's module leaves out (it needs _GNU_SOURCE).
            usage(of: 1)
        #else
            .zero
        #endif
    }

    private static func usage(of who: Int32) -> CPUTime {
        var usage = rusage()
        #if os(Linux)
            getrusage(__rusage_who_t(who), &usage)
        #else
            getrusage(who, &usage)
        #endif
        return CPUTime(usage)
    }

    /// The user and system time of `usage`.
    init(_ usage: rusage) {
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        self.init(user: seconds(usage.ru_utime), system: seconds(usage.ru_stime))
    }

    /// The sum of two usages.
    public func adding(_ other: CPUTime) -> CPUTime {
        CPUTime(user: user + other.user, system: system + other.system)
    }

    /// This usage without `part`'s (a share of it, such as one thread's), split between user
    /// and system as this usage is.
    ///
    /// Linux measures each thread's and the process's total exactly, but splits a total
    /// between user and kernel time by sampling which mode the scheduler tick (1/HZ) found,
    /// and scales each reading's split separately: a thread's user time can exceed the
    /// process's over the same window (user_seconds came out negative, −4 ms, when the part's
    /// user time was subtracted from the process's). The totals subtract; the split is the
    /// kernel's estimate for the whole.
    public func excluding(_ part: CPUTime) -> CPUTime {
        let remaining = total - part.total
        guard total > 0 else { return .zero }
        let userShare = user / total
        return CPUTime(user: remaining * userShare, system: remaining * (1 - userShare))
    }

    /// The usage between `earlier` and this reading.
    public func since(_ earlier: CPUTime) -> CPUTime {
        CPUTime(user: user - earlier.user, system: system - earlier.system)
    }
}

/// The process's processor time in nanoseconds, from `CLOCK_PROCESS_CPUTIME_ID`: for short
/// intervals (the moments after a cancel), where `getrusage`'s totals move in scheduler ticks.
public enum ProcessorClock {
    /// Nanoseconds of processor time every thread of the process has used so far.
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
