public import Platform

/// What a measurement did to the process: the evidence that no thread or memory leaks across runs.
public struct ProcessGrowth: Encodable, Sendable {
    /// After the warm-up round.
    public let afterWarmup: ProcessSnapshot
    /// After the last counted run.
    public let atEnd: ProcessSnapshot

    public init(afterWarmup: ProcessSnapshot, atEnd: ProcessSnapshot) {
        self.afterWarmup = afterWarmup
        self.atEnd = atEnd
    }
}
