public import Dispatch
import Platform
import Synchronization

/// One pass of a render, as a strategy sees it: the plan, the tiles to hand out, and cancellation.
///
/// A strategy receives a `RenderWork` and decides only who calls
/// ``renderTile(_:)`` for which tile, on which thread. Tiles write disjoint
/// parts of the picture, so any thread may render any tile without locks.
public final class RenderWork: Sendable {
    /// The tiles and who renders which: the whole picture's plan for a dynamic split,
    /// one band's for a static split (which runs band by band).
    public let plan: WorkPlan
    /// Set it to ask the strategy to stop.
    public let cancellation: CancellationFlag
    /// Which pass this is.
    public let pass: RenderPass
    /// Who stops the render when it is cancelled.
    public let cancellationMode: CancellationMode
    /// How long the strategy must wait, its own non-blocking way, after each tile it
    /// renders; nil when there is no wait or ``renderTile(_:)`` blocks for it.
    public let asynchronousWait: Duration?
    /// ``asynchronousWait`` for Dispatch's timers (`asyncAfter`).
    public var asynchronousWaitInterval: DispatchTimeInterval? {
        asynchronousWait.map { wait in
            let (seconds, attoseconds) = wait.components
            return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        }
    }
    /// The order the tiles should be rendered in (``TileOrder/centre`` only for a dynamic plan of one band).
    public let order: TileOrder
    /// What the strategy submits: every tile with its priority, takers, or fixed shares.
    public let submission: Submission
    /// For ``TileOrder/centre``: the tiles ranked by distance from the centre.
    private let ranking: CentreRanking?
    /// How long ``renderTile(_:)`` sleeps after each tile, in nanoseconds (0: not at all).
    let blockingWait: UInt64

    let renderer: any TileRenderer
    let pipeline: BandPipeline
    /// The picture's plan, in which this work's tile 0 is tile `firstTile`.
    let picturePlan: WorkPlan
    let firstTile: Int
    let registry: WorkerRegistry
    let onTileFinished: (@Sendable () -> Void)?
    private let nextDynamicTile = Atomic<Int>(0)
    private let cancelRegistrations = Locked<[Int]>([])
    private let failureRecord = Locked<RenderFailure?>(nil)
    /// What this run's helper processes recovered from (the `process` strategy only).
    let recovery: RecoveryTally
    /// The processor time of this run's helper processes (the `process` strategy only).
    let helperTime: HelperProcessorTime

    /// What every work of one run shares, whatever its pass or tiles.
    struct RunContext: Sendable {
        /// The run's settings; a work's order is its own (a preview's is rows).
        let settings: RunSettings
        let cancellation: CancellationFlag
        let registry: WorkerRegistry
        /// For a centre-first run: the picture's tiles ranked by distance from the centre.
        let ranking: CentreRanking?
        /// Whether the strategy waits its own non-blocking way (``RenderStrategy/asynchronousWait``).
        let waitsAsynchronously: Bool
        /// Whether the strategy has a priority facility (``RenderStrategy/priorityFacility``).
        let prioritises: Bool
        let onTileFinished: (@Sendable () -> Void)?
        /// What the run's helper processes recovered from.
        var recovery = RecoveryTally()
        /// The processor time of the run's helper processes.
        var helperTime = HelperProcessorTime()
    }

    /// What the works of one pass share: the pass, who renders its tiles, and where they go.
    struct PassContext: Sendable {
        let pass: RenderPass
        let renderer: any TileRenderer
        let pipeline: BandPipeline
    }

    /// Prepares tiles `firstTile ..< firstTile + plan.tileCount` of `picturePlan`, which `plan` numbers from 0.
    init(
        plan: WorkPlan, firstTile: Int, of picturePlan: WorkPlan, order: TileOrder, pass: PassContext,
        run: RunContext
    ) {
        precondition(order == .rows || run.ranking != nil, "a centre-first render needs its ranking")
        let ranking = order == .centre ? run.ranking : nil
        self.order = order
        self.ranking = ranking
        submission = Self.submission(of: plan, ranking: ranking, prioritises: run.prioritises)
        cancellationMode = run.settings.cancellationMode
        let tileWait = run.settings.tileWait
        let waits = tileWait.nanoseconds > 0
        asynchronousWait = waits && run.waitsAsynchronously ? .nanoseconds(Int64(tileWait.nanoseconds)) : nil
        blockingWait = waits && !run.waitsAsynchronously ? tileWait.nanoseconds : 0
        self.plan = plan
        self.firstTile = firstTile
        self.picturePlan = picturePlan
        self.pass = pass.pass
        renderer = pass.renderer
        pipeline = pass.pipeline
        registry = run.registry
        cancellation = run.cancellation
        onTileFinished = run.onTileFinished
        recovery = run.recovery
        helperTime = run.helperTime
        onCancel { [pipeline] in pipeline.wakeWaiters() }
    }

    /// What a strategy submits for `plan`: every tile with its priority when the mechanism has
    /// a priority facility (`prioritises`) and the render is centre first; otherwise a taker
    /// per worker for a dynamic plan, whose shared counter hands tiles out in the render's
    /// order; otherwise each worker's fixed share.
    private static func submission(of plan: WorkPlan, ranking: CentreRanking?, prioritises: Bool) -> Submission {
        if plan.isDynamic, prioritises, let ranking {
            .prioritised(TilePriorities(tileCount: plan.tileCount, ranking: ranking))
        } else if plan.isDynamic {
            .takers(count: plan.workerCount)
        } else {
            .shares((0..<plan.workerCount).map(plan.tiles(of:)))
        }
    }

    /// Whether the core stops the render: the shared flag is set, and the mode is ``CancellationMode/flag``.
    ///
    /// In ``CancellationMode/native`` mode this stays false: only the mechanism's own
    /// cancel, registered with ``onCancel(_:)``, can stop the work.
    public var isCancelled: Bool { cancellationMode == .flag && cancellation.isCancelled }

    /// Registers a strategy's own cancel (`Thread.cancel()`, `cancelAllOperations()`, …)
    /// to run if the render is cancelled; it is forgotten when the pass completes.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        if let registration = cancellation.onCancel(handler) {
            cancelRegistrations.withLock { $0.append(registration) }
        }
    }

    /// Forgets this pass's cancel handlers: they capture the strategy's threads or
    /// queues, which capture this work, and would otherwise keep it alive.
    func releaseCancelHandlers() {
        let registrations = cancelRegistrations.withLock { list in
            defer { list = [] }
            return list
        }
        registrations.forEach(cancellation.removeHandler)
    }

    /// Reports that the strategy could not do its work (a thread would not start): the
    /// render is cancelled, and the failure is what the render throws.
    ///
    /// The strategy still calls its completion once every worker it did start has stopped.
    public func reportFailure(_ failure: RenderFailure) {
        failureRecord.withLock { recorded in
            if recorded == nil { recorded = failure }
        }
        cancellation.cancel()
    }

    /// The first failure a strategy reported, if any.
    var failure: RenderFailure? { failureRecord.withLock { $0 } }

    /// The next tile of a dynamic plan, or nil once all are taken or the render is cancelled:
    /// in row order, or nearest the centre first for ``TileOrder/centre``.
    ///
    /// Safe from any thread: one atomic increment. Take a tile only when about to render
    /// it, on the thread that will: a tile taken by a block or task still waiting in a
    /// queue could hold up a band that running workers wait for.
    public func nextTile() -> Int? {
        guard !isCancelled else { return nil }
        let index = nextDynamicTile.add(1, ordering: .relaxed).oldValue
        guard index < plan.tileCount else { return nil }
        return ranking.map { $0.sequence[index] } ?? index
    }

    /// Renders worker `worker`'s share of the plan on the calling thread, then returns:
    /// its fixed tiles in a static plan, or tiles from the shared counter in a dynamic one.
    ///
    /// The loop every thread-per-worker strategy runs (thread, apply, pthread). A worker
    /// beyond a static plan's workers has no share (a thread that serves two renders,
    /// a preview and a picture, may have a share of one only).
    /// It stops at the first cancelled tile, or as soon as `shouldContinue`
    /// (a mechanism's own cancel state, such as `Thread.isCancelled`) says no.
    public func renderShare(of worker: Int, while shouldContinue: () -> Bool = { true }) {
        switch submission {
        case .prioritised, .takers:
            while shouldContinue(), let tile = nextTile() {
                guard renderTile(tile) else { return }
            }
        case .shares(let shares):
            guard worker < shares.count else { return }
            for tile in shares[worker] {
                guard shouldContinue(), renderTile(tile) else { return }
            }
        }
    }

    /// Renders tile `index` and records who did it and when.
    ///
    /// Checks for cancellation before every segment of a row, so even a tall
    /// band stops within a row's time. A tile of a band whose buffer is still
    /// being written waits for it first; that is safe because every earlier
    /// tile was taken by a worker that is running (see ``nextTile()``).
    ///
    /// - Parameter index: A tile of ``plan``; traps if out of range.
    /// - Returns: false if the render was cancelled before the tile was finished.
    @discardableResult
    public func renderTile(_ index: Int) -> Bool {
        guard !isCancelled else { return false }
        precondition(index >= 0 && index < plan.tileCount, "tile outside the plan")
        let tile = firstTile + index
        let band = picturePlan.band(of: tile)
        guard pipeline.acquire(band, givingUpOnCancel: cancellationMode == .flag) else { return false }
        let worker = registry.currentWorker()
        let start = MonotonicClock.nanoseconds()
        let rect = picturePlan.rect(of: tile)
        let target = pipeline.target(for: band)
        guard let iterations = renderer.render(rect, into: target, isCancelled: { isCancelled }) else { return false }
        let end = MonotonicClock.nanoseconds()
        onTileFinished?()
        pipeline.tileFinished(tile, band: band, worker: worker, start: start, end: end, iterations: iterations)
        // The thread sleeps, as work that waits for I/O or a lock does.
        if blockingWait > 0 { SystemThread.sleep(nanoseconds: blockingWait) }
        return true
    }
}
