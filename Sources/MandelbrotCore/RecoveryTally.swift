import Synchronization

/// What a strategy that isolates its workers in processes recovered from during one run:
/// helpers that broke down, and tiles sent again to their replacements.
public final class RecoveryTally: Sendable {
    private let crashes = Atomic<Int>(0)
    private let retried = Atomic<Int>(0)

    public init() {}

    /// Counts one helper's breakdown and the `retried` tiles it had not finished.
    func record(retried tiles: Int) {
        crashes.add(1, ordering: .relaxed)
        retried.add(tiles, ordering: .relaxed)
    }

    /// Helpers that died, hung or sent something malformed.
    public var helperCrashes: Int { crashes.load(ordering: .relaxed) }
    /// Tiles sent again because the helper that had them broke down.
    public var workRetried: Int { retried.load(ordering: .relaxed) }
}

extension RenderWork {
    /// Counts a helper's breakdown, and the `retried` tiles it had been given and not finished,
    /// which the strategy sends again: what the report shows as `helper_crashes` and `work_retried`.
    package func recordHelperCrash(retried tiles: Int) {
        recovery.record(retried: tiles)
    }
}
