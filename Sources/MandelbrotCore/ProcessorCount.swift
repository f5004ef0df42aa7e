import Foundation

/// How many processors this process may really use.
public enum ProcessorCount {
    /// The smaller of the CPUs in this process's affinity mask and its cgroup CPU quota.
    ///
    /// `ProcessInfo.activeProcessorCount` ignores both, so in a container it
    /// can promise cores the process will never get.
    public static let available: Int = {
        var count = ProcessInfo.processInfo.activeProcessorCount
        // sched_getaffinity is not exported to Swift; /proc gives the same mask in hex.
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) {
            let mask = line.dropFirst("Cpus_allowed:".count).filter { $0.isHexDigit }
            let affinity = mask.reduce(0) { $0 + (Int(String($1), radix: 16) ?? 0).nonzeroBitCount }
            if affinity > 0 { count = min(count, affinity) }
        }
        // cgroup v2 writes "max 100000" (no limit) or "<quota> <period>" in microseconds.
        if let limit = try? String(contentsOfFile: "/sys/fs/cgroup/cpu.max", encoding: .utf8) {
            let fields = limit.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
            if fields.count == 2, let quota = Double(fields[0]), let period = Double(fields[1]), period > 0 {
                count = min(count, max(1, Int((quota / period).rounded(.up))))
            }
        }
        return max(1, count)
    }()
}
