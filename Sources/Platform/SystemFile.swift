/// Small text files and folders of the kernel's (`/proc`, `/sys`), read without Foundation.
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
        // Byte by byte, line by line, up to the key's line: splitting the whole text into lines of
        // Characters for every key took about 100 µs of /proc/meminfo, and the process strategy's
        // helpers ask for two keys of it before every tile.
        let bytes = text.utf8
        var lineStart = bytes.startIndex
        while lineStart < bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            if bytes[lineStart..<lineEnd].starts(with: key.utf8) {
                // /proc/cpuinfo pads its keys with tabs ("model name\t: AMD EPYC"), /proc/self/status does not.
                var cursor = bytes.index(lineStart, offsetBy: key.utf8.count)
                while cursor < lineEnd, bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") {
                    cursor = bytes.index(after: cursor)
                }
                if cursor < lineEnd, bytes[cursor] == UInt8(ascii: ":") {
                    return text[bytes.index(after: cursor)..<lineEnd].drop { $0.isWhitespace }
                }
            }
            lineStart = lineEnd < bytes.endIndex ? bytes.index(after: lineEnd) : lineEnd
        }
        return nil
    }

    /// The names in a folder, such as the thread ids in `/proc/self/task`, leaving out `.`, `..`
    /// and any other name that starts with a dot; nil if the folder cannot be listed.
    public static func names(in folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names
    }
}
