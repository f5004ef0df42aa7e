/// Nanoseconds on the monotonic clock, the clock every record and deadline uses.
public enum MonotonicClock {
    /// Now, in nanoseconds since an arbitrary fixed point.
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Seconds from `start` (a reading of ``nanoseconds()``) to now.
    public static func seconds(since start: UInt64) -> Double {
        Double(nanoseconds() &- start) / 1e9
    }
}
