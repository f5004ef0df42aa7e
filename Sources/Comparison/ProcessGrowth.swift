package import Platform

/// What a measurement did to the process: the evidence that no thread or memory leaks across runs.
package struct ProcessGrowth: Encodable, Sendable {
    /// After the warm-up round.
    package let afterWarmup: ProcessSnapshot
    /// After the last counted run.
    package let atEnd: ProcessSnapshot

    package init(afterWarmup: ProcessSnapshot, atEnd: ProcessSnapshot) {
        self.afterWarmup = afterWarmup
        self.atEnd = atEnd
    }
}
