import Platform

/// The machine a comparison ran on.
package struct MachineDescription: Encodable, Sendable {
    /// Processors this process may use.
    package let processors: Int
    /// The operating system and kernel.
    package let os: String
    /// The processor's model name.
    package let cpu: String
    /// The Swift compiler that built `mandel`.
    package let swift: String

    /// Describes this machine.
    package init() {
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
