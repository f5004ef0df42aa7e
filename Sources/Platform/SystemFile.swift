/// Small text files of the kernel's (`/proc`, `/sys`), read without Foundation.
public enum SystemFile {
    /// The whole of a small file, or nil if it cannot be read.
    public static func text(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value after `key:` on the line that starts with it, such as `VmRSS:` in `/proc/self/status`.
    public static func field(_ key: String, in text: String) -> Substring? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
        return line.dropFirst(key.count + 1).drop { $0.isWhitespace }
    }
}
