/// What a driver submits for one render, decided by the core: the driver only chooses how.
///
/// Every feature of a render that is not the mechanism (the split, the order, the priority
/// classes) is settled here, so a driver is one `switch` over ``RenderWork/submission``.
public enum Submission: Sendable {
    /// Every tile at once, in row order, each with its priority class: the mechanism chooses
    /// what runs first. Only for a centre-first render by a strategy with a priority facility.
    case prioritised(TilePriorities)
    /// `count` takers, each taking the next tile from ``RenderWork/nextTile()`` when it runs
    /// (never before: a tile is only held by a thread rendering it), until none is left.
    case takers(count: Int)
    /// Fixed shares: worker `w` renders `shares[w]`, in order.
    case shares([WorkerTiles])
}

/// The tiles of a ``Submission/prioritised(_:)`` render and the priority of each.
public struct TilePriorities: Sendable {
    /// Every tile of the plan, in row order: the order to submit them in.
    public let tiles: Range<Int>
    private let ranking: CentreRanking

    init(tileCount: Int, ranking: CentreRanking) {
        tiles = 0..<tileCount
        self.ranking = ranking
    }

    /// The priority class of `tile` among `classes` classes: 0 for the most central tiles,
    /// `classes - 1` for the farthest, each class holding an equal share of the tiles.
    public func priorityClass(of tile: Int, among classes: Int) -> Int {
        ranking.rank[tile] * classes / tiles.count
    }

    /// The level of `tile` among a mechanism's `levels`, the most urgent first.
    public func level<Level>(of tile: Int, among levels: [Level]) -> Level {
        levels[priorityClass(of: tile, among: levels.count)]
    }
}

/// What a strategy is asked to run: one render, or a preview and then the picture that depends on it.
public struct StrategyRun: Sendable {
    /// The render to start at once.
    public let first: RenderWork
    /// The render that may start only once every tile of `first` is done, if any.
    public let then: Dependent?

    /// A render that waits for the one before it, and what to tell the main queue in between.
    public struct Dependent: Sendable {
        /// The render.
        public let work: RenderWork
        /// To call exactly once, on the main queue, once the render before it is done (this
        /// render's tiles may be under way by then).
        public let firstDone: @Sendable () -> Void
    }

    /// One render.
    public init(_ work: RenderWork) {
        first = work
        then = nil
    }

    /// `first`, then `second`, which depends on it; `firstDone` runs on the main queue in between.
    public init(_ first: RenderWork, then second: RenderWork, firstDone: @escaping @Sendable () -> Void) {
        self.first = first
        then = Dependent(work: second, firstDone: firstDone)
    }

    /// Every render, in order.
    public var works: [RenderWork] { [first] + (then.map { [$0.work] } ?? []) }

    /// The last render: the one a failure is reported to, and whose end is the completion.
    public var last: RenderWork { then?.work ?? first }

    /// The most workers any of the renders plans: how many threads a thread-per-worker
    /// mechanism starts, or how wide a queue it makes.
    public var workerCount: Int { works.map(\.plan.workerCount).max()! }

    /// Registers the mechanism's own cancel with every render (see ``RenderWork/onCancel(_:)``).
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        works.forEach { $0.onCancel(handler) }
    }

    /// Renders worker `worker`'s share of each render in turn on the calling thread, calling
    /// `meeting` after the first (where a thread waits for the others), then returns; stops as
    /// ``RenderWork/renderShare(of:while:)`` does.
    ///
    /// The loop of a strategy whose threads serve both renders (thread, pthread).
    public func renderShares(of worker: Int, meeting: () -> Void, while shouldContinue: () -> Bool = { true }) {
        first.renderShare(of: worker, while: shouldContinue)
        guard let then else { return }
        meeting()
        then.work.renderShare(of: worker, while: shouldContinue)
    }
}
