/// How many processors this process may really use.
public enum ProcessorCount {
    /// The smaller of the CPUs in this process's affinity mask and its cgroup CPU quota.
    ///
    /// The online processor count ignores both, so in a container it can
    /// promise cores the process will never get.
    public static let available: Int = {
        var count = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        // sched_getaffinity is not exported to Swift; /proc gives the same mask in hex.
        if let status = SystemFile.text("/proc/self/status"),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
        {
            let mask = line.dropFirst("Cpus_allowed:".count).filter(\.isHexDigit)
            let affinity = mask.reduce(0) { $0 + (Int(String($1), radix: 16) ?? 0).nonzeroBitCount }
            if affinity > 0 { count = min(count, affinity) }
        }
        // cgroup v2 writes "max 100000" (no limit) or "<quota> <period>" in microseconds.
        if let limit = SystemFile.text("/sys/fs/cgroup/cpu.max") {
            let fields = limit.split(whereSeparator: \.isWhitespace)
            if fields.count == 2, let quota = Double(fields[0]), let period = Double(fields[1]), period > 0 {
                count = min(count, max(1, Int((quota / period).rounded(.up))))
            }
        }
        return count
    }()
}
