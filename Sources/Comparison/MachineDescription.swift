import Platform

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

    /// Describes this machine.
    public init() {
        processors = ProcessorCount.available
        os = SystemDescription.operatingSystem
        cpu = SystemDescription.processor
        swift = Self.compilerVersion
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
