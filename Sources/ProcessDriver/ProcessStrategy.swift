import Dispatch
import Foundation
public import MandelbrotCore
import Platform
import Synchronization

/// Helper processes as a remote queue: each worker is a process of its own (`mandel helper`,
/// started with `posix_spawn`), served by one parent thread over a pair of pipes.
///
/// The parent sends each helper the pass's recipe once, then tile requests, two ahead so
/// that a helper never waits for the round trip; the helper sends back each tile's rows
/// (or its histogram bins), which the parent checks and writes into the render's buffer.
/// A helper that dies, hangs past the deadline or sends anything malformed costs only
/// time: it is killed, and its unfinished tiles go to a fresh helper in its place (a tile
/// is idempotent). A slot whose helpers die ``restartLimit`` times in a row without
/// finishing a tile ends the render with ``RenderFailure/helpersFailed(_:)``.
public struct ProcessStrategy: RenderStrategy {
    /// Helpers that may die in a row, in one slot, before the render gives up.
    public static let restartLimit = 3
    /// Tile requests a helper holds at once: the one it renders and the next.
    static let requestsAhead = 2
    /// How long a helper may say nothing (it sends a sign of life eight times as often while it works).
    static var deadlineNanoseconds: UInt64 {
        let seconds = getenv("MANDEL_HELPER_DEADLINE").flatMap { Double(String(cString: $0)) } ?? 5
        return UInt64(max(deadlineSeconds.lowerBound, min(seconds, deadlineSeconds.upperBound)) * 1e9)
    }

    /// The deadlines `MANDEL_HELPER_DEADLINE` may set, in seconds.
    static let deadlineSeconds = 0.05...3600.0

    /// How long a new helper may take to answer its first message: a program starting on a
    /// loaded machine can take far longer than a tile's deadline.
    static let startupNanoseconds: UInt64 = 30_000_000_000

    /// Where helpers wait between renders; nil starts each pass's helpers and ends them with it.
    let pool: HelperPool?

    /// The strategy; with `pool`, each pass takes its helpers from it and gives them back (a
    /// server's renders), and a cancel stops feeding them instead of killing them.
    public init(keeping pool: HelperPool? = nil) {
        self.pool = pool
    }

    /// Yes: each helper builds a deep view's table from the orbit its recipe carries.
    public var workersBuildTheTable: Bool { true }

    public var name: String { "process" }

    public var summary: String {
        "Helper processes (mandel helper, posix_spawn) fed tiles over pipes, one parent thread each; a dead helper's "
            + "tiles go to a fresh one."
    }

    /// One serving thread per helper.
    public func threadsStarted(for plan: WorkPlan) -> Int { plan.workerCount }

    public var nativeCancellation: NativeCancellation {
        guard pool == nil else {
            return .stopsWorkers(
                "no more tiles to any helper: each finishes the tile it has (at most two asked ahead), which is thrown "
                    + "away, and goes back to the pool")
        }
        return .stopsWorkers(
            "SIGKILL to every helper: a tile under way in another process stops at once, and its thread stops waiting")
    }

    public var dependency: String {
        pool == nil
            ? "the first render's completion on the main queue starts the second, with new helpers for its recipe"
            : "the first render's completion on the main queue starts the second, whose recipe goes to the pool's "
                + "helpers"
    }

    public var recovery: String {
        "a helper that dies, hangs past the deadline or answers badly is killed and replaced, and its unfinished "
            + "tiles are sent again; \(Self.restartLimit) failures in a row in one slot end the render (exit 69)"
    }

    /// The program a helper runs: this very one (``ChildProcess/runningProgram``, which still
    /// starts it once its file is deleted or replaced by a rebuild mid-render), unless this is a
    /// test bundle, whose build folder holds the `mandel` it was built with.
    static var helperExecutable: String {
        guard let current = ChildProcess.currentExecutable, current.hasSuffix(".xctest") else {
            return ChildProcess.runningProgram
        }
        return (current as NSString).deletingLastPathComponent + "/mandel"
    }

    /// Starts the first render's helpers and returns; the first render's completion, on the
    /// main queue, starts the second's (with new helpers for its recipe).
    public func start(_ run: StrategyRun, completion: @escaping @Sendable () -> Void) {
        ChildProcess.ignoreBrokenPipes()
        guard let then = run.then else { return start(run.first, completion: completion) }
        start(run.first) {
            then.firstDone()
            start(then.work, completion: completion)
        }
    }

    /// Starts one serving thread per worker of `work`, each with its helper; the last to
    /// finish calls `completion` on the main queue.
    private func start(_ work: RenderWork, completion: @escaping @Sendable () -> Void) {
        let recipe = work.tileRecipe
        let pass = SharedPass(work: work, recipe: recipe.encoded, executable: Self.helperExecutable, pool: pool)
        // The mechanism's own cancel: SIGKILL to every helper; with a pool, no more tiles to them.
        work.onCancel { pass.stopAll() }
        let sources: [TileSource]
        switch work.submission {
        case .shares(let shares): sources = shares.map { .fixed(Array($0)) }
        case .takers(let count): sources = Array(repeating: .shared, count: count)
        // Not given without a priority facility: takers in the order nextTile() hands out.
        case .prioritised: sources = Array(repeating: .shared, count: work.plan.workerCount)
        }
        let group = DispatchGroup()
        for (slot, tiles) in sources.enumerated() {
            group.enter()
            let thread = Thread {
                Self.serve(slot: slot, tiles: tiles, pass: pass, recipe: recipe)
                group.leave()
            }
            thread.name = "mandel.helper.\(slot)"
            thread.start()
        }
        group.notify(queue: .main) {
            // The helpers built their tables side by side: the pass waited for the slowest.
            recipe.recordTableBuiltElsewhere(seconds: pass.tableSeconds)
            completion()
        }
    }
}
