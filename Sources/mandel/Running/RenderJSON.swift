import Comparison
import MandelbrotCore
import Platform
import Probes

/// The JSON object of `render --json`, documented in docs/options.md: keys in snake case and
/// sorted, every key written, absent values as null.
struct RenderJSON: Encodable {
    let strategy: String
    let width: Int
    let height: Int
    let iterations: Int
    let workers: Int
    let workersRequested: Int
    let split: String
    let tile: String
    let color: String
    let kernel: String
    let region: String
    @OrNull var center: [Double]?
    @OrNull var zoom: Double?
    /// The centre and zoom as the view was given (see ``ViewText``): every digit, any depth.
    @OrNull var centerText: String?
    @OrNull var zoomText: String?
    @OrNull var julia: [Double]?
    let supersample: Int
    let wallSeconds: Double
    let cpuSeconds: Double
    let userSeconds: Double
    let systemSeconds: Double
    let totalIterations: UInt64
    @OrNull var megapixelsPerSecond: Double?
    @OrNull var iterationsPerSecond: Double?
    let threadsUsed: Int
    let workerBusySeconds: [Double]
    @OrNull var imbalance: Double?
    let format: String
    let writeSeconds: Double
    /// Null for a render cancelled on purpose: it wrote no picture.
    @OrNull var output: String?
    @OrNull var checksum: String?
    @OrNull var bandRows: Int?
    let bands: Int
    let peakResidentBytes: Int
    @OrNull var precisionLimitZoom: Double?
    @OrNull var mainQueue: StrategyBehaviour.MainQueue?
    @OrNull var peakThreads: Int?
    let cancelled: Bool
    @OrNull var cancelRequestedSeconds: Double?
    @OrNull var cancelLatency: Double?
    @OrNull var tilesAfterCancel: Int?
    @OrNull var cpuAfterCancel: Double?
    @OrNull var threadsRunningAfterCancel: Int?
    let order: String
    @OrNull var part: [Int]?
    let pictureHeight: Int
    @OrNull var firstPictureSeconds: Double?
    @OrNull var centreDoneSeconds: Double?
    @OrNull var merge: String?
    @OrNull var mergeBatch: Int?
    @OrNull var mergeBatches: Int?
    @OrNull var mergeSeconds: Double?
    @OrNull var mergeWaitSeconds: Double?
    let helperCrashes: Int
    let workRetried: Int
    /// `double` or `perturbation`: how the pixels were computed.
    let precision: String
    /// Deep views only (null otherwise): the table of bilinear approximations on or off.
    @OrNull var bla: Bool?
    /// The serial parts of a deep render, before any pixel: the reference orbit in MPFR and the table.
    @OrNull var orbitSeconds: Double?
    @OrNull var orbitSteps: Int?
    @OrNull var precisionBits: Int?
    @OrNull var extendedExponent: Bool?
    @OrNull var tableSeconds: Double?
    /// The wall time less the serial parts.
    @OrNull var pixelSeconds: Double?
    /// The serial parts' share of the wall time, and what it leaves two workers (Amdahl's law).
    @OrNull var serialShare: Double?
    @OrNull var twoWorkerBound: Double?

    init(_ summary: RenderSummary) {
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
        pictureHeight = facts.part?.pictureSize.height ?? job.size.height
        firstPictureSeconds = report.firstPictureSeconds
        centreDoneSeconds = report.centreDoneSeconds
        merge = report.merge?.sharing.merge.rawValue
        mergeBatch = report.merge?.sharing.batch
        mergeBatches = report.merge?.batches
        mergeSeconds = report.merge?.mergeSeconds
        mergeWaitSeconds = report.merge?.waitSeconds
        helperCrashes = report.helperCrashes
        workRetried = report.workRetried
        precision = job.deep == nil ? PrecisionMode.double.rawValue : PrecisionMode.perturbation.rawValue
        bla = job.deep?.usesTable
        if let phases = report.deepPhases {
            let share = DeepText.serialShare(phases, wallSeconds: report.wallSeconds)
            orbitSeconds = phases.orbitSeconds
            orbitSteps = phases.orbitLength
            precisionBits = phases.precisionBits
            extendedExponent = phases.extendedExponent
            tableSeconds = phases.tableSeconds
            pixelSeconds = max(0, report.wallSeconds - phases.orbitSeconds - phases.tableSeconds)
            serialShare = share
            twoWorkerBound = DeepText.amdahlBound(serialShare: share, workers: 2)
        }
    }
}
