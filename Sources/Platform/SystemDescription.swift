/// What this machine is: its operating system, kernel and processor, as its own files say.
public enum SystemDescription {
    /// The distribution's name (`PRETTY_NAME` of /etc/os-release) and the kernel release, such as
    /// `Debian GNU/Linux 12 (bookworm), Linux 6.1.0`.
    public static var operatingSystem: String {
        let release = SystemFile.text("/etc/os-release").flatMap { SystemFile.field("PRETTY_NAME", equalsIn: $0) }
        let kernel = SystemFile.text("/proc/sys/kernel/osrelease").map { String($0.trimmed) } ?? "unknown"
        return [release ?? "unknown", "Linux \(kernel)"].joined(separator: ", ")
    }

    /// The processor's model name, from /proc/cpuinfo.
    public static var processor: String {
        SystemFile.text("/proc/cpuinfo").flatMap { SystemFile.field("model name", in: $0) }.map { String($0.trimmed) }
            ?? "unknown"
    }
}

extension SystemFile {
    /// The value of `key=value` or `key="value"` on its own line, as in /etc/os-release.
    static func field(_ key: String, equalsIn text: String) -> String? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + "=") }) else { return nil }
        var value = line.dropFirst(key.count + 1)
        if value.first == "\"" && value.last == "\"" && value.count >= 2 { value = value.dropFirst().dropLast() }
        return String(value)
    }
}
