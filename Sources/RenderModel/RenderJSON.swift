package import Comparison
import MandelOptions
import MandelbrotCore
import Platform
import Probes

/// The JSON object of `render --json`, documented in docs/options.md: keys in snake case and
/// sorted, every key written, absent values as null.
package struct RenderJSON: Encodable {
    package let strategy: String
    package let width: Int
    package let height: Int
    package let iterations: Int
    package let workers: Int
    package let workersRequested: Int
    package let split: String
    package let tile: String
    package let color: String
    package let kernel: String
    package let region: String
    @OrNull package var center: [Double]?
    @OrNull package var zoom: Double?
    /// The centre and zoom as the view was given (see ``ViewText``): every digit, any depth.
    @OrNull package var centerText: String?
    @OrNull package var zoomText: String?
    @OrNull package var julia: [Double]?
    package let supersample: Int
    package let wallSeconds: Double
    package let cpuSeconds: Double
    package let userSeconds: Double
    package let systemSeconds: Double
    package let totalIterations: UInt64
    @OrNull package var megapixelsPerSecond: Double?
    @OrNull package var iterationsPerSecond: Double?
    package let threadsUsed: Int
    package let workerBusySeconds: [Double]
    @OrNull package var imbalance: Double?
    package let format: String
    package let writeSeconds: Double
    /// Null for a render cancelled on purpose: it wrote no picture.
    @OrNull package var output: String?
    @OrNull package var checksum: String?
    @OrNull package var bandRows: Int?
    package let bands: Int
    package let peakResidentBytes: Int
    @OrNull package var precisionLimitZoom: Double?
    @OrNull package var mainQueue: StrategyBehaviour.MainQueue?
    @OrNull package var peakThreads: Int?
    package let cancelled: Bool
    @OrNull package var cancelRequestedSeconds: Double?
    @OrNull package var cancelLatency: Double?
    @OrNull package var tilesAfterCancel: Int?
    @OrNull package var cpuAfterCancel: Double?
    @OrNull package var threadsRunningAfterCancel: Int?
    package let order: String
    @OrNull package var part: [Int]?
    /// `--frame`'s K and N; null outside a zoom sequence.
    @OrNull package var frame: [Int]?
    package let pictureHeight: Int
    package let pictureWidth: Int
    /// `--window`'s X, Y, W, H; null for a whole picture or a part.
    @OrNull package var window: [Int]?
    @OrNull package var firstPictureSeconds: Double?
    @OrNull package var centreDoneSeconds: Double?
    @OrNull package var merge: String?
    @OrNull package var mergeBatch: Int?
    @OrNull package var mergeBatches: Int?
    @OrNull package var mergeSeconds: Double?
    @OrNull package var mergeWaitSeconds: Double?
    package let helperCrashes: Int
    package let workRetried: Int
    /// `double` or `perturbation`: how the pixels were computed.
    package let precision: String
    /// Why (``PrecisionReason``): `shallow`, `deep-zoom`, `samples-coincide`, `asked`, `julia` or `preset`.
    package let precisionReason: String
    /// Deep views only (null otherwise): the table of bilinear approximations on or off.
    @OrNull package var bla: Bool?
    /// The serial parts of a deep render, before any pixel: the reference orbit in MPFR and the table.
    @OrNull package var orbitSeconds: Double?
    @OrNull package var orbitSteps: Int?
    /// The period the orbit stopped at (its steps), where it found a nucleus in the view; null otherwise.
    @OrNull package var orbitPeriod: Int?
    @OrNull package var precisionBits: Int?
    @OrNull package var extendedExponent: Bool?
    @OrNull package var tableSeconds: Double?
    /// The wall time less the serial parts.
    @OrNull package var pixelSeconds: Double?
    /// The serial parts' share of the wall time, and what it leaves two workers (Amdahl's law).
    @OrNull package var serialShare: Double?
    @OrNull package var twoWorkerBound: Double?
    /// The bound for the render's own workers, and the orbit's microseconds a step at its precision
    /// (null where this render took an orbit computed before).
    @OrNull package var workersBound: Double?
    @OrNull package var orbitStepMicroseconds: Double?
    /// Deep views: the pixels whose Double steps could not decide their count, counted again in
    /// MPFR, and those left with their Double counts, past the MPFR budget (null for `double`, and
    /// for the `process` strategy, whose helpers count their own).
    @OrNull package var exactPixels: Int?
    @OrNull package var uncertainPixels: Int?

    package init(_ summary: RenderSummary) {
        let (facts, report, behaviour) = (summary.facts, summary.report, summary.behaviour)
        let job = facts.job
        var viewport: Viewport?
        if case .view(let view) = job.region { viewport = view }
        strategy = facts.strategy
        width = job.size.width
        height = job.size.height
        iterations = job.iterations
        workers = facts.workers
        workersRequested = facts.workersRequested
        split = job.split.rawValue
        tile = job.tileSize.description
        color = job.colorScheme.rawValue
        kernel = job.kernel.rawValue
        region = job.isBenchmarksGame ? Preset.benchmarksGame.rawValue : "view"
        center = viewport.map { [$0.centerReal, $0.centerImaginary] }
        zoom = viewport.flatMap { ViewText.zoomNumber(of: job, $0) }
        centerText = viewport.map { ViewText.center(of: job, $0) }
        zoomText = viewport.map { ViewText.zoom(of: job, $0) }
        julia = job.julia.map { [$0.real, $0.imaginary] }
        supersample = job.supersampling
        wallSeconds = report.wallSeconds
        cpuSeconds = report.cpu.total
        userSeconds = report.cpu.user
        systemSeconds = report.cpu.system
        totalIterations = report.totalIterations
        megapixelsPerSecond = summary.megapixelsPerSecond?.finiteOrNil
        iterationsPerSecond = summary.iterationsPerSecond.finiteOrNil
        threadsUsed = report.threadsUsed
        workerBusySeconds = report.workerBusySeconds
        imbalance = report.imbalance.finiteOrNil
        format = facts.format.rawValue
        writeSeconds = summary.writeSeconds
        let wrote = behaviour.cancel == nil
        output = wrote ? facts.output : nil
        checksum = wrote ? NumberFormat.checksum(summary.checksum) : nil
        bandRows = facts.bandRows
        bands = facts.bandCount
        peakResidentBytes = summary.peakResidentBytes
        precisionLimitZoom = facts.precisionLimit
        mainQueue = behaviour.mainQueue.map(StrategyBehaviour.MainQueue.init)
        peakThreads = behaviour.samples?.peakThreads
        cancelled = behaviour.cancel != nil
        cancelRequestedSeconds = report.cancelRequestedSeconds
        cancelLatency = behaviour.cancel?.latencySeconds
        tilesAfterCancel = behaviour.cancel?.tilesStartedAfter
        cpuAfterCancel = behaviour.cancel?.cpuAfterSeconds
        threadsRunningAfterCancel = behaviour.cancel?.threadsRunningAfter
        order = facts.order.rawValue
        part = facts.part.map { [$0.index, $0.count] }
        frame = facts.frame.map { [$0.index, $0.count] }
        pictureHeight = facts.part?.pictureSize.height ?? job.pictureSize.height
        pictureWidth = job.pictureSize.width
        window =
            facts.part == nil ? job.window.map { [$0.firstColumn, $0.firstRow, job.size.width, job.size.height] } : nil
        // A cancelled render's preview counts only if it was written: one cancelled before its file was put in
        // place reached nobody.
        let previewLost = behaviour.cancel != nil && facts.previewOutput != nil && !summary.previewPlaced
        firstPictureSeconds = previewLost ? nil : report.firstPictureSeconds
        centreDoneSeconds = report.centreDoneSeconds
        merge = report.merge?.sharing.merge.rawValue
        mergeBatch = report.merge?.sharing.batch
        mergeBatches = report.merge?.batches
        mergeSeconds = report.merge?.mergeSeconds
        mergeWaitSeconds = report.merge?.waitSeconds
        helperCrashes = report.helperCrashes
        workRetried = report.workRetried
        precision = job.deep == nil ? PrecisionMode.double.rawValue : PrecisionMode.perturbation.rawValue
        precisionReason = facts.precisionReason.rawValue
        bla = job.deep?.usesTable
        if let phases = report.deepPhases {
            let share = DeepText.serialShare(phases, wallSeconds: report.wallSeconds)
            orbitSeconds = phases.orbitSeconds
            orbitSteps = phases.orbitLength
            orbitPeriod = phases.orbitPeriod
            precisionBits = phases.precisionBits
            extendedExponent = phases.extendedExponent
            tableSeconds = phases.tableSeconds
            pixelSeconds = max(0, report.wallSeconds - phases.orbitSeconds - phases.tableSeconds)
            serialShare = share
            twoWorkerBound = DeepText.amdahlBound(serialShare: share, workers: 2)
            workersBound = DeepText.amdahlBound(serialShare: share, workers: job.workers)
            orbitStepMicroseconds = DeepText.stepMicroseconds(phases)
            exactPixels = report.deepUntrustedPixels?.counted
            uncertainPixels = report.deepUntrustedPixels?.left
        }
    }
}
