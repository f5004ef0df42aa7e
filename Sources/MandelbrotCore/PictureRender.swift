import Platform

/// A picture of any size rendered by one strategy: every pass, every band, one path.
///
/// A picture is cut into bands (one band for a picture rendered whole). With
/// a dynamic split the strategy sees one sequence of tiles for the whole
/// picture and runs once per pass; with a static split it runs once per band
/// (see ``WorkPlan``). Band buffers rotate beneath it, and each band, once
/// its last tile is done, goes to the sink while the workers render the next. Memory therefore grows with the width and
/// the band
/// height, never with the height. Histogram colouring runs a counting pass
/// over every band before the colouring pass.
///
/// A `PictureRender` allocates its buffers once and may be run many times
/// (`mandel compare` runs each strategy on its own, repeatedly).
public final class PictureRender: Sendable {
    /// What to render.
    public let job: RenderJob
    /// The tiles and bands.
    public let plan: WorkPlan
    /// The flag that stops a run.
    public let cancellation: CancellationFlag
    /// Every pixel's escape count, if asked for (a picture rendered whole only).
    public let counts: IterationCounts?
    /// How far a deep view's serial part has gone, for a progress meter; nil for a view in `Double`s.
    public let serialProgress: SerialProgress?

    /// The most steps a deep view's own orbit may take (its memory's bound), where the memory
    /// available holds no orbit as long as the limit: one that finds its period sooner needs no
    /// more (``DeepView/detectsPeriod``); nil for the limit.
    private let orbitStepBudget: Int?
    private let grid: SampleGrid
    private let canvases: [PixelBuffer]
    private let recorders: [TileRecorder]
    private let preview: Preview?

    /// The coarse picture rendered before the full one: its job, plan, grid and memory.
    private struct Preview: Sendable {
        let every: Int
        let job: RenderJob
        let plan: WorkPlan
        let grid: SampleGrid
        let canvas: PixelBuffer
        let recorder: TileRecorder
    }

    /// The tiles of a preview of `job`.
    public static func previewPlanTileCount(of job: RenderJob, every: Int) -> Int {
        previewJob(of: job, every: every).plan().tileCount
    }

    /// The job of a preview of every `every`-th pixel of `job`: its size, and its tiles cut to it.
    static func previewJob(of job: RenderJob, every: Int) -> RenderJob {
        var coarse = job
        coarse.size = previewSize(of: job.size, every: every)
        coarse.tileSize = TileSize(
            width: min(job.tileSize.width, coarse.size.width), height: min(job.tileSize.height, coarse.size.height))
        return coarse
    }

    /// The size of a preview of every `every`-th pixel of a `size` picture: pixels 0, every, 2·every, ….
    public static func previewSize(of size: ImageSize, every: Int) -> ImageSize {
        ImageSize(width: (size.width + every - 1) / every, height: (size.height + every - 1) / every)
    }

    /// The most bands in flight at once: three, so that workers can run two bands
    /// ahead of the one being written; one for a picture rendered whole.
    public static func bandsInFlight(for plan: WorkPlan) -> Int { min(plan.bandCount, 3) }

    /// Prepares a render and allocates its memory.
    ///
    /// - Parameters:
    ///   - job: What to render.
    ///   - bandHeight: Rows per band; the whole picture at once by default.
    ///   - keepsCounts: Keep every pixel's escape count in ``counts``; traps unless the picture is one band.
    ///   - extraBytes: Memory the caller will need beside the render's (for pictures it draws from it),
    ///     counted in the check below.
    ///   - histogramMerges: The ways runs may merge a histogram, for the same check (private needs
    ///     a histogram per worker).
    ///   - strategies: The strategies that will run it, for the same check: where the workers are
    ///     helper processes (``RenderStrategy/workersBuildTheTable``), each holds its own copy of a
    ///     deep view's reference and table. None: the workers are threads.
    ///   - cancellation: The flag that stops a run.
    /// - Throws: ``RenderFailure/outOfMemory(bytes:purpose:available:)`` when the render (with
    ///   `extraBytes`) needs more memory than the process can have, found before allocating, or
    ///   when an allocation fails.
    public init(
        job: RenderJob, bandHeight: Int? = nil, keepsCounts: Bool = false, extraBytes: Int = 0,
        histogramMerges: [HistogramMerge] = [HistogramSharing.standard.merge], strategies: [any RenderStrategy] = [],
        previewEvery: Int? = nil, cancellation: CancellationFlag = CancellationFlag()
    ) throws(RenderFailure) {
        if job.isBenchmarksGame {
            precondition(job.supersampling == 1, "the Benchmarks Game preset samples one point per pixel")
        }
        let plan = job.plan(bandHeight: bandHeight)
        precondition(!keepsCounts || plan.bandCount == 1, "escape counts are kept for a picture rendered whole")
        // The most helper processes any of the strategies runs at once: the most memory.
        let helperProcesses =
            strategies.map { $0.workersBuildTheTable ? $0.concurrentWorkers(for: plan) : 0 }.max() ?? 0
        func bytesNeeded(orbitSteps: Int?) -> Int {
            let needed = Self.bytesNeeded(
                for: job, plan: plan, keepsCounts: keepsCounts, mergesPrivately: histogramMerges.contains(.private),
                helperProcesses: helperProcesses, preview: previewEvery != nil, orbitSteps: orbitSteps
            ).addingReportingOverflow(extraBytes)
            return needed.overflow ? Int.max : needed.partialValue
        }
        let bytes = bytesNeeded(orbitSteps: nil)
        var orbitStepBudget: Int?
        if let available = ResourceLimits.memoryAvailable(), bytes > available {
            // An orbit that may stop at its period gets the steps that fit, and stops with one line
            // past them (DeepReference); without room for 2^16 steps, or for the rest of the picture,
            // it is refused here, as every other render that does not fit.
            var fits = 1 << 16
            guard job.deep?.detectsPeriod == true, fits < job.kernelLimit, bytesNeeded(orbitSteps: fits) <= available
            else {
                throw .outOfMemory(
                    bytes: bytes, purpose: Self.purpose(of: job, helperProcesses: helperProcesses),
                    available: available)
            }
            var above = job.kernelLimit
            while above - fits > 1 {
                let middle = fits + (above - fits) / 2
                if bytesNeeded(orbitSteps: middle) <= available { fits = middle } else { above = middle }
            }
            orbitStepBudget = fits
        }
        self.orbitStepBudget = orbitStepBudget
        self.job = job
        self.plan = plan
        self.cancellation = cancellation
        grid = job.makeSampleGrid()
        let inFlight = Self.bandsInFlight(for: plan)
        var canvases: [PixelBuffer] = []
        var recorders: [TileRecorder] = []
        for _ in 0..<inFlight {
            canvases.append(
                try PixelBuffer(
                    size: ImageSize(width: job.size.width, height: plan.bandHeight), format: job.pixelFormat)
            )
            recorders.append(try TileRecorder(capacity: plan.tileCount(of: 0)))
        }
        self.canvases = canvases
        self.recorders = recorders
        counts = keepsCounts ? try IterationCounts(size: job.size) : nil
        serialProgress = job.deep == nil ? nil : SerialProgress(stepLimit: job.kernelLimit)
        if let every = previewEvery {
            precondition(every >= 2, "a preview takes every second pixel or fewer")
            precondition(
                plan.bandCount == 1 && job.passes == [.coloring],
                "a preview comes before a picture rendered whole in one pass")
            let coarse = Self.previewJob(of: job, every: every)
            let coarsePlan = coarse.plan()
            preview = Preview(
                every: every, job: coarse, plan: coarsePlan,
                grid: grid.coarse(every: every, samples: job.supersampling, size: coarse.size),
                canvas: try PixelBuffer(size: coarse.size, format: job.pixelFormat),
                recorder: try TileRecorder(capacity: coarsePlan.tileCount))
        } else {
            preview = nil
        }
    }

    /// The preview's pixels, once a run with a preview has delivered it; nil without a preview.
    public var previewCanvas: PixelBuffer? { preview?.canvas }

    /// The whole picture, for a picture rendered in one band; nil for a banded one.
    public var canvas: PixelBuffer? { plan.bandCount == 1 ? canvases[0] : nil }

    /// The tiles a run renders, counting every pass: what a progress meter counts to.
    public var tilesPerRun: Int { plan.tileCount * job.passes.count }

    /// The memory a render of `job` needs, before the process's own: band buffers, the
    /// sample grid's columns, tile records, the escape counts if kept, the histogram
    /// (a histogram per worker besides if workers may merge into histograms of their own), and a
    /// deep view's reference orbit, BLA table and lanes' steps, for an orbit as long as the
    /// iteration limit, or of `orbitSteps` (see `DeepMemory`).
    ///
    /// The figure is the process tree's: with `helperProcesses` (the `process` strategy's
    /// workers), this process holds the orbit and the recipe that carries it, and each helper its
    /// own copy of the orbit, the table and the lanes' steps. The helpers' other memory (their
    /// program, a tile's rows) is not counted.
    ///
    /// - Parameters:
    ///   - helperProcesses: The helper processes that render the tiles at once; 0 where the
    ///     workers are threads of this process.
    ///   - preview: Whether a preview comes first (its recipe may outlive its pass for a moment).
    public static func bytesNeeded(
        for job: RenderJob, plan: WorkPlan, keepsCounts: Bool, mergesPrivately: Bool = false,
        helperProcesses: Int = 0, preview: Bool = false, orbitSteps: Int? = nil
    ) -> Int {
        let histogramBytes =
            job.colorScheme == .histogram
            ? EscapeHistogram.bytesNeeded(limit: job.kernelLimit, privateHistograms: mergesPrivately ? job.workers : 0)
            : 0
        let deep = job.deep.map { DeepMemory(steps: orbitSteps ?? job.kernelLimit, usesTable: $0.usesTable) }
        let deepTerms: [(Int, Int)] =
            if let deep {
                helperProcesses > 0
                    ? [(deep.parentBytes(recipes: preview ? 2 : 1), 1), (helperProcesses, deep.helperBytes)]
                    : [(deep.rendererBytes, 1)]
            } else { [] }
        let inFlight = bandsInFlight(for: plan)
        let terms: [(Int, Int)] = [
            (inFlight * plan.bandHeight, job.pixelFormat.bytesPerRow(width: job.size.width)),
            (job.size.width, job.supersampling * MemoryLayout<Double>.stride),
            (inFlight * plan.tileCount(of: 0), TileRecorder.bytesPerTile),
            // A picture rendered whole reports every tile of every pass.
            (plan.bandCount == 1 ? plan.tileCount : 0, job.passes.count * MemoryLayout<TileRecord>.stride),
            (keepsCounts ? job.size.pixelCount : 0, MemoryLayout<UInt32>.stride),
            (histogramBytes, 1),
        ]
        var total = 0
        for (count, size) in terms + deepTerms {
            let product = count.multipliedReportingOverflow(by: size)
            let sum = total.addingReportingOverflow(product.partialValue)
            guard !product.overflow, !sum.overflow else { return Int.max }
            total = sum.partialValue
        }
        return total
    }

    /// What the memory check names: the picture, and a deep view's reference and table, in
    /// each helper process too.
    static func purpose(of job: RenderJob, helperProcesses: Int) -> String {
        guard let deep = job.deep else { return "a \(job.size) picture" }
        let reference = deep.usesTable ? "a reference orbit and table" : "a reference orbit"
        let copies =
            switch helperProcesses {
            case 0: ""
            case 1: " (and a copy in its helper process)"
            default: " (and a copy in each of its \(helperProcesses) helper processes)"
            }
        return "a \(job.size) picture with \(reference) of \(job.kernelLimit) steps\(copies)"
    }

    /// Renders the picture with `strategy`, handing each finished band to `sink`.
    ///
    /// Before it starts, checks that the process may start the threads the strategy
    /// needs: some mechanisms (GCD's pool, Foundation's `Thread`) cannot report a
    /// thread that fails to start, and would wait for it forever.
    ///
    /// - Parameters:
    ///   - strategy: Who runs the tiles.
    ///   - sink: Who takes the finished bands; nil keeps a picture rendered whole in ``canvas``.
    ///   - settings: Who stops a cancelled pass, the tile wait, the histogram's sharing and the
    ///     order (a ``TileOrder/centre`` order of a plan that cannot have one traps).
    ///   - runCancellation: A flag for this run only, instead of ``cancellation``.
    ///   - onPreview: With a preview (see `init`), called on the main queue once the preview is
    ///     done, with the seconds since the start; ``previewCanvas`` then holds it. The full
    ///     picture's tiles may be under way meanwhile.
    ///   - onTileFinished: Called on the worker's thread after each finished tile of every pass; cheap and thread-safe.
    ///   - plannedStop: A cancel planned for a time after the start (`--cancel-after`): told the
    ///     start, and disarmed once the last pass's work is done, so a render that finished
    ///     before its cancel came is a finished render.
    ///   - references: Where a deep view's reference is kept for the renders that follow (`mandel serve`).
    ///   - orbit: The orbit a deep view takes its reference from, computed by the first render that
    ///     needs it (the frames of a zoom); it must serve the view (``ZoomOrbit/serves(_:samples:limit:)``).
    /// - Returns: The report. `wallSeconds` runs from the first pass's start to the last pass's
    ///   completion; the sink's writing of the last bands comes after it.
    /// - Throws: ``RenderCancelled`` if the cancel flag was set; a ``RenderFailure`` the strategy
    ///   reported or found before starting; or the first error the sink reported.
    public func run(
        _ strategy: any RenderStrategy, sink: (any BandSink)? = nil, settings: RunSettings = RunSettings(),
        cancellation runCancellation: CancellationFlag? = nil, onTileFinished: (@Sendable () -> Void)? = nil,
        onPreview: (@MainActor @Sendable (Double) -> Void)? = nil, plannedStop: (any PlannedStop)? = nil,
        references: DeepReferenceStore? = nil, orbit: ZoomOrbit? = nil
    ) async throws -> RenderReport {
        // A run may have a flag of its own (a planned cancel of one run among many); ``cancellation`` otherwise.
        let cancellation = runCancellation ?? self.cancellation
        let order = settings.order
        precondition(
            order == .rows || (plan.isDynamic && plan.bandCount == 1 && plan.tileCount <= TileOrder.maximumCentreTiles),
            "a centre-first render needs the tiles split, the whole picture and at most "
                + "\(TileOrder.maximumCentreTiles) tiles"
        )
        let ranking = order == .centre ? CentreRanking(plan: plan) : nil
        let threads = strategy.threadsStarted(for: plan)
        // The threads a render's own queues start (bands, writer, histogram) besides the strategy's.
        let helperThreads = 3
        if threads > 0, let available = ResourceLimits.threadsAvailable(), threads + helperThreads > available {
            throw RenderFailure.threadsUnavailable(needed: threads + helperThreads, available: available)
        }
        let start = MonotonicClock.nanoseconds()
        let startCPU = CPUTime.now()
        plannedStop?.start(atNanoseconds: start)
        let histogram =
            job.colorScheme == .histogram ? EscapeHistogram(limit: job.kernelLimit, sharing: settings.sharing) : nil
        var deepReference: DeepReference?
        let exactPixels = ExactPixelTally()
        // A reference taken from `references` cost this render no serial time.
        var reusedReference = false
        let run = RenderWork.RunContext(
            settings: settings, cancellation: cancellation, registry: WorkerRegistry(), ranking: ranking,
            waitsAsynchronously: settings.tileWait.mode == .async && strategy.asynchronousWait != nil,
            prioritises: strategy.priorityFacility != nil, onTileFinished: onTileFinished)
        var records: [RenderPass: [TileRecord]] = [:]
        var sinkCPU = CPUTime.zero
        var end = start
        var endProcessorTime: UInt64 = 0
        let firstPicture = Locked<Double?>(nil)
        var previewRecords: [TileRecord] = []
        func report() -> RenderReport {
            RenderReport(
                strategy: strategy.name, wallSeconds: Double(end - start) / 1e9,
                cpu: CPUTime.now().since(startCPU).excluding(sinkCPU).adding(run.helperTime.total),
                tiles: records[.coloring] ?? [],
                countingTiles: records[.counting] ?? [], plannedWorkers: strategy.concurrentWorkers(for: plan),
                cancelRequestedSeconds: cancellation.cancelledAt.map { Double(Int64(bitPattern: $0 &- start)) / 1e9 },
                processorNanosecondsAtCompletion: endProcessorTime, startNanoseconds: start,
                merge: histogram?.statistics, firstPictureSeconds: firstPicture.withLock { $0 },
                previewTiles: previewRecords,
                centreDoneSeconds: plan.bandCount == 1
                    ? RenderReport.centreDone(records[.coloring] ?? [], size: job.size) : nil, recovery: run.recovery,
                deepPhases: reusedReference ? deepReference?.reportedPhases.reused : deepReference?.reportedPhases,
                deepUntrustedPixels: strategy.workersBuildTheTable || deepReference == nil
                    ? nil : (exactPixels.counted, exactPixels.left))
        }

        // A deep view's serial part: the reference orbit (its table built beside it), before any pixel.
        if let deep = job.deep, let serialProgress {
            let reach = job.deepReach
            let buildsTable = !strategy.workersBuildTheTable
            func make() throws(RenderFailure) -> DeepReference? {
                guard let orbit else {
                    return try DeepReference(
                        view: deep, reach: reach, limit: job.kernelLimit, cancellation: cancellation,
                        progress: serialProgress, buildsTable: buildsTable, mostSteps: orbitStepBudget)
                }
                precondition(
                    orbit.serves(deep, samples: reach.pictureSamples, limit: job.kernelLimit),
                    "a shared orbit of another centre, precision or limit")
                if let prepared = orbit.takePrepared(view: deep, reach: reach, buildsTable: buildsTable) {
                    return prepared
                }
                serialProgress.enter(.orbit)
                guard let (steps, seconds) = try orbit.steps(cancellation: cancellation, progress: serialProgress)
                else { return nil }
                return try DeepReference(
                    steps: steps, view: deep, reach: reach, limit: job.kernelLimit, orbitSeconds: seconds,
                    buildsTable: buildsTable)
            }
            if let references {
                let key = DeepReferenceStore.Key(
                    view: deep, bits: deep.precisionBits(for: reach.pictureSamples),
                    farthestOffset: reach.farthestOffset.bitPattern, limit: job.kernelLimit, buildsTable: buildsTable)
                let found = try references.reference(for: key, make: make)
                deepReference = found?.reference
                reusedReference = found?.wasKept ?? false
            } else {
                deepReference = try make()
            }
            if deepReference == nil {
                end = MonotonicClock.nanoseconds()
                endProcessorTime = ProcessorClock.nanoseconds()
                throw RenderCancelled(report: report())
            }
            serialProgress.enter(.pixels)
        }
        let samples = SampleCounter(job: job, grid: grid, deep: deepReference, exactPixels: exactPixels)

        for pass in job.passes {
            let slots = zip(canvases, recorders).map { canvas, recorder in
                BandPipeline.Slot(canvas: pass == .coloring ? canvas : nil, counts: counts, recorder: recorder)
            }
            let pipeline = BandPipeline(
                plan: plan, slots: slots, sink: pass == .coloring ? sink : nil, cancellation: cancellation,
                keepsTileRecords: plan.bandCount == 1, origin: start)
            let renderer = renderer(for: pass, samples: samples, histogram: histogram)
            let passContext = RenderWork.PassContext(pass: pass, renderer: renderer, pipeline: pipeline)
            /// The work of `bandPlan`, tiles `firstTile…` of the picture's plan.
            func work(_ bandPlan: WorkPlan, from firstTile: Int) -> RenderWork {
                RenderWork(plan: bandPlan, firstTile: firstTile, of: plan, order: order, pass: passContext, run: run)
            }
            var failure: RenderFailure?
            if let preview {
                // The coarse picture first, then the full one, which depends on it: the strategy
                // says how. The preview keeps its pixels (no sink), the full picture goes on as always.
                let previewPipeline = BandPipeline(
                    plan: preview.plan,
                    slots: [BandPipeline.Slot(canvas: preview.canvas, counts: nil, recorder: preview.recorder)],
                    sink: nil, cancellation: cancellation, keepsTileRecords: true, origin: start)
                let previewRenderer = self.renderer(
                    for: .coloring,
                    samples: SampleCounter(
                        job: preview.job, grid: preview.grid, deep: deepReference, exactPixels: exactPixels),
                    histogram: nil)
                let previewWork = RenderWork(
                    plan: preview.plan, firstTile: 0, of: preview.plan, order: .rows,
                    pass: RenderWork.PassContext(pass: pass, renderer: previewRenderer, pipeline: previewPipeline),
                    run: run)
                let whole = work(plan.isDynamic ? plan : plan.band(0), from: 0)
                await StrategyRunner.run(strategy, first: previewWork, then: whole) {
                    let seconds = MonotonicClock.seconds(since: start)
                    firstPicture.withLock { $0 = seconds }
                    // StrategyRunner has checked that this runs on the main queue.
                    if !cancellation.isCancelled { MainActor.assumeIsolated { onPreview?(seconds) } }
                }
                failure = previewWork.failure ?? whole.failure
                previewRecords = await previewPipeline.drain().records
            } else if plan.isDynamic {
                // One run over every band: workers flow from one band into the next.
                let whole = work(plan, from: 0)
                await StrategyRunner.run(strategy, work: whole)
                failure = whole.failure
            } else {
                // A static plan runs band by band (see WorkPlan), each starting once its buffer is free.
                for band in 0..<plan.bandCount where failure == nil && !cancellation.isCancelled {
                    await pipeline.slotFree(for: band)
                    guard !cancellation.isCancelled else { break }
                    let bandWork = work(plan.band(band), from: plan.firstTile(of: band))
                    await StrategyRunner.run(strategy, work: bandWork)
                    failure = bandWork.failure
                }
            }
            // Every tile is done: a planned cancel that has not come by now does not come.
            if pass == job.passes.last { plannedStop?.disarm() }
            end = MonotonicClock.nanoseconds()
            endProcessorTime = ProcessorClock.nanoseconds()
            let outcome = await pipeline.drain()
            records[pass] = outcome.records
            sinkCPU = sinkCPU.adding(outcome.sinkCPU)
            if let failure { throw failure }
            if let error = outcome.deliveryError { throw error }
            if let cancelledAt = cancellation.cancelledAt {
                // A cancel after this pass's end (an earlier pass's): the completion is when it was seen.
                if cancelledAt > end {
                    end = MonotonicClock.nanoseconds()
                    endProcessorTime = ProcessorClock.nanoseconds()
                }
                throw RenderCancelled(report: report())
            }
            if pass == .counting, let histogram {
                // The seal queues behind every tile's batch; the colouring pass starts after it.
                await awaitHandoff { sealed in histogram.seal(then: sealed) }
            }
        }
        return report()
    }

    private func renderer(for pass: RenderPass, samples: SampleCounter, histogram: EscapeHistogram?) -> any TileRenderer
    {
        switch pass {
        case .counting:
            return CountingTileRenderer(samples: samples, histogram: histogram!, supersampling: job.supersampling)
        case .coloring:
            let colorizer = RowColorizer(
                scheme: job.colorScheme, limit: job.kernelLimit, palette: job.palette, histogram: histogram)
            return job.supersampling == 1
                ? PixelTileRenderer(samples: samples, colorizer: colorizer)
                : SupersampledTileRenderer(samples: samples, colorizer: colorizer, supersampling: job.supersampling)
        }
    }
}

extension PictureRender {
    /// Renders `job` whole with `strategy` and returns the picture and the report: the short way, for tests and tools.
    public static func render(
        _ job: RenderJob, with strategy: any RenderStrategy, cancellation: CancellationFlag = CancellationFlag()
    ) async throws -> (PixelBuffer, RenderReport) {
        let render = try PictureRender(job: job, cancellation: cancellation)
        let report = try await render.run(strategy)
        return (render.canvas!, report)
    }
}
