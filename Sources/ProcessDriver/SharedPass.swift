import MandelbrotCore
import Platform
import Synchronization

/// What the slots of one pass share: the work, the recipe, and each slot's helper for a cancel to reach.
final class SharedPass: Sendable {
    let work: RenderWork
    let recipe: [UInt8]
    let executable: String
    /// Behind a pthread mutex (`Locked`), not `Mutex`: slots adopt their helpers at the same moment,
    /// and ThreadSanitizer cannot see `Mutex`'s contended path (it reported this table as a race).
    private let helpers = Locked<[Int: Int32]>([:])
    private let stopped = Atomic(false)
    /// The longest any helper of the pass took to build a deep view's table from the orbit it received.
    private let longestTable = Locked<Double>(0)

    /// Where the pass's helpers come from and go back to; nil for helpers of this pass only.
    let pool: HelperPool?

    init(work: RenderWork, recipe: [UInt8], executable: String, pool: HelperPool? = nil) {
        self.work = work
        self.recipe = recipe
        self.executable = executable
        self.pool = pool
    }

    /// Whether the pass was cancelled, by the flag or the mechanism's own cancel.
    var isStopped: Bool { stopped.load(ordering: .relaxed) || work.isCancelled }

    /// Records that a helper built its table in `seconds`.
    func recordTable(seconds: Double) { longestTable.withLock { $0 = max($0, seconds) } }

    /// The longest a helper of the pass took to build its table.
    var tableSeconds: Double { longestTable.withLock { $0 } }

    /// The native cancel: kills every helper; with a pool, only stops feeding them (each slot
    /// waits for what its helper was asked, throws it away and gives the helper back).
    func stopAll() {
        stopped.store(true, ordering: .relaxed)
        guard pool == nil else { return }
        helpers.withLock { helpers in
            for pid in helpers.values { kill(pid, SIGKILL) }
        }
    }

    /// Records `helper` as slot `slot`'s, for a cancel to reach (killed at once if the pass is stopped).
    func adopt(_ helper: HelperConnection, slot: Int) {
        helpers.withLock { helpers in
            helpers[slot] = helper.pid
            if stopped.load(ordering: .relaxed) && pool == nil { kill(helper.pid, SIGKILL) }
        }
    }

    /// Forgets slot `slot`'s helper, before it is reaped (after which its pid may be another process's).
    func release(slot: Int) {
        _ = helpers.withLock { $0.removeValue(forKey: slot) }
    }

    /// Counts a helper's breakdown; returns false, having failed the render, once the slot's
    /// helpers have broken down ``ProcessStrategy/restartLimit`` times in a row.
    func recordBreakdown(slot: Int, _ reason: String, deathsInARow: inout Int, retried: Int) -> Bool {
        deathsInARow += 1
        work.recordHelperCrash(retried: retried)
        guard deathsInARow < ProcessStrategy.restartLimit else {
            work.reportFailure(
                .helpersFailed(
                    "helper \(slot) failed \(deathsInARow) times in a row, the most mandel allows (the last: \(reason))"
                ))
            return false
        }
        return true
    }
}
