/// How many processors this process may really use.
public enum ProcessorCount {
    /// The smaller of the CPUs in this process's affinity mask and its cgroup CPU quota.
    ///
    /// The online processor count ignores both, so in a container it can
    /// promise cores the process will never get.
    public static let available: Int = count(
        online: sysconf(Int32(_SC_NPROCESSORS_ONLN)), status: SystemFile.text("/proc/self/status"),
        cpuMax: SystemFile.text("/sys/fs/cgroup/cpu.max"))

    /// The processors of `online` that `status` (`/proc/self/status`'s text: its `Cpus_allowed` mask)
    /// and `cpuMax` (cgroup v2's `cpu.max`) leave: at least 1.
    package static func count(online: Int, status: String?, cpuMax: String?) -> Int {
        var count = max(1, online)
        // sched_getaffinity is not exported to Swift; /proc gives the same mask in hex.
        if let status, let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) {
            let mask = line.dropFirst("Cpus_allowed:".count).filter(\.isHexDigit)
            let affinity = mask.reduce(0) { $0 + (Int(String($1), radix: 16) ?? 0).nonzeroBitCount }
            if affinity > 0 { count = min(count, affinity) }
        }
        // cgroup v2 writes "max 100000" (no limit) or "<quota> <period>" in microseconds: a quota of 1.5
        // periods lets the process run on two processors at once, each three quarters of the time.
        if let cpuMax {
            let fields = cpuMax.split(whereSeparator: \.isWhitespace)
            if fields.count == 2, let quota = Double(fields[0]), let period = Double(fields[1]), period > 0 {
                count = min(count, max(1, Int((quota / period).rounded(.up))))
            }
        }
        return count
    }
}
