import Foundation

/// The machine a comparison ran on.
public struct MachineDescription: Encodable, Sendable {
    /// Processors this process may use.
    public let processors: Int
    /// The operating system and kernel.
    public let os: String
    /// The processor's model name.
    public let cpu: String
    /// The Swift compiler that built `mandel`.
    public let swift: String

    /// Describes this machine; `processors` is passed in because the core knows how to count them.
    public init(processors: Int) {
        self.processors = processors
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { $0.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        os = [release ?? ProcessInfo.processInfo.operatingSystemVersionString, "Linux \(Self.kernelRelease)"]
            .joined(separator: ", ")
        cpu =
            (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        swift = Self.compilerVersion
    }

    private static var kernelRelease: String {
        (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
    }

    private static var compilerVersion: String {
        #if compiler(>=6.4)
            "6.4 or later"
        #elseif compiler(>=6.3)
            "6.3"
        #elseif compiler(>=6.2)
            "6.2"
        #else
            "6.1 or earlier"
        #endif
    }
}
