import Deadline
import Dispatch
import MandelbrotCore
import Platform
import Testing

/// Collects delivered bands into one whole picture's bytes, checking they arrive in order.
final class BandCollector: BandSink {
    private let bytes = Locked<[UInt8]>([])
    private let nextRow = Locked(0)
    private let checksum = Locked(PixelChecksum())
    private let queue = DispatchQueue(label: "test.collector")
    private let failure: (@Sendable (Range<Int>) -> (any Error)?)?

    /// A collector; `failure` may return an error to report for a band instead of taking it.
    init(failure: (@Sendable (Range<Int>) -> (any Error)?)? = nil) { self.failure = failure }

    func consume(_ band: FinishedBand, done: @escaping @Sendable (Result<CPUTime, any Error>) -> Void) {
        queue.async {
            if let error = self.failure?(band.rows) {
                done(.failure(error))
                return
            }
            self.nextRow.withLock { next in
                #expect(band.rows.lowerBound == next, "bands arrive top to bottom")
                next = band.rows.upperBound
            }
            band.withBytes { band in
                self.checksum.withLock { $0.add(band) }
                self.bytes.withLock { $0 += band }
            }
            done(.success(.zero))
        }
    }

    /// Whether the collected bytes are exactly `whole`'s.
    func matches(_ whole: PixelBuffer) -> Bool {
        whole.withBytes { expected in bytes.withLock { $0.elementsEqual(expected) } }
    }

    var streamedChecksum: UInt64 { checksum.withLock { $0.value } }
    var rowsDelivered: Int { nextRow.withLock { $0 } }
}

@Suite("Banded rendering")
struct BandedRenderTests {
    /// Renders `job` in bands of `bandHeight` rows and returns the reassembled picture and the report.
    static func banded(
        _ job: RenderJob, bandHeight: Int, with strategy: any RenderStrategy,
        cancellation: CancellationFlag = CancellationFlag(),
        collector: BandCollector = BandCollector()
    ) async throws -> (BandCollector, RenderReport) {
        let render = try PictureRender(job: job, bandHeight: bandHeight, cancellation: cancellation)
        // process starts its helpers for each band of a static split: 58 generations of three for
        // bands of one row and histogram colouring's two passes, which took over 60 s under
        // ThreadSanitizer at a load of 4 (each helper a sanitized process).
        let seconds = strategy.name == "process" ? 3 * renderDeadlineSeconds : renderDeadlineSeconds
        let report = try await withDeadline(
            seconds: seconds, waitingFor: "\(strategy.name) rendering in bands of \(bandHeight) rows"
        ) {
            try await render.run(strategy, sink: collector)
        }
        return (collector, report)
    }

    @Test(
        "banded output is identical to the whole picture for every strategy, split and colouring",
        arguments: allStrategies.map(\.name), [ColorScheme.bw, .smooth, .histogram])
    func identical(strategyName: String, color: ColorScheme) async throws {
        let strategy = strategy(named: strategyName)
        for split in WorkSplit.allCases {
            for (bandHeight, supersampling) in [(1, 1), (7, 2), (16, 1)] {
                let job = RenderJob(
                    size: ImageSize(width: 41, height: 29),
                    region: .view(Viewport(centerReal: -0.75, centerImaginary: 0.1, zoom: 3)),
                    iterations: 300, colorScheme: color, split: split, tileSize: TileSize(width: 16, height: 8),
                    workers: 3,
                    supersampling: supersampling)
                let (whole, wholeReport) = try await render(job, with: SerialStrategy())
                let (collector, report) = try await Self.banded(job, bandHeight: bandHeight, with: strategy)
                let label = "\(strategyName) \(split) \(color) bands of \(bandHeight), \(supersampling)x"
                #expect(collector.rowsDelivered == 29, "\(label)")
                #expect(collector.matches(whole), "\(label)")
                #expect(
                    collector.streamedChecksum == whole.checksum,
                    "the running checksum equals the whole picture's: \(label)")
                #expect(report.totalIterations == wholeReport.totalIterations, "\(label)")
            }
        }
    }

    @Test("the Benchmarks Game preset streams identically too")
    func benchmarksGame() async throws {
        let job = RenderJob(
            size: ImageSize(width: 201, height: 201), region: .benchmarksGame, iterations: 50, colorScheme: .bw,
            split: .rows, workers: 2)
        let (whole, _) = try await render(job, with: SerialStrategy())
        let (collector, _) = try await Self.banded(job, bandHeight: 13, with: strategy(named: "gcd"))
        #expect(collector.matches(whole))
    }

    @Test("records stay bounded: one per band and worker, not one per tile")
    func boundedRecords() async throws {
        let job = RenderJob(
            size: ImageSize(width: 128, height: 256), iterations: 100, colorScheme: .bw,
            tileSize: TileSize(width: 4, height: 4), workers: 2)
        let (_, report) = try await Self.banded(job, bandHeight: 32, with: strategy(named: "apply"))
        #expect(job.plan(bandHeight: 32).tileCount == 32 * 64)
        #expect(report.tiles.count <= 8 * 2, "8 bands × at most 2 workers, not \(report.tiles.count) records")
        #expect(Set(report.tiles.map(\.rect.y)) == Set(stride(from: 0, to: 256, by: 32)))
        let (_, whole) = try await render(job, with: SerialStrategy())
        #expect(report.totalIterations == whole.totalIterations, "every tile's iterations are kept in the aggregate")
    }

    @Test(
        "workers run ahead into later bands while a band is still being written: no barrier between bands",
        arguments: concurrentStrategyNames)
    func noBarrier(strategyName: String) async throws {
        // The sink holds band 0 until tiles of later bands have finished; with a barrier
        // between bands (band 1 starting only after band 0 is delivered) they never would.
        let job = RenderJob(
            size: ImageSize(width: 64, height: 64), iterations: 50, colorScheme: .bw, split: .tiles,
            tileSize: TileSize(width: 8, height: 8), workers: 2)
        let tilesPerBand = 8
        let finishedTiles = Locked(0)
        let collector = BandCollector { rows in
            if rows.lowerBound == 0 {
                // The sink's queue may wait: the workers do not need it to go on.
                for _ in 0..<1000 where finishedTiles.withLock({ $0 }) <= tilesPerBand { usleep(10_000) }
                #expect(finishedTiles.withLock { $0 } > tilesPerBand, "a tile of band 1 finished while band 0 was held")
            }
            return nil
        }
        let render = try PictureRender(job: job, bandHeight: 8)
        let strategy = strategy(named: strategyName)
        _ = try await withDeadline(waitingFor: "\(strategyName) rendering bands while band 0 is held") {
            try await render.run(strategy, sink: collector) { finishedTiles.withLock { $0 += 1 } }
        }
        #expect(collector.rowsDelivered == 64)
    }

    @Test("a delivery that fails stops the render and its error comes back")
    func failingDelivery() async throws {
        struct DiskFull: Error {}
        let job = RenderJob(size: ImageSize(width: 64, height: 640), iterations: 50, colorScheme: .bw, workers: 2)
        let delivered = Locked(0)
        let collector = BandCollector { _ in
            delivered.withLock { $0 += 1 }
            return DiskFull()
        }
        await #expect(throws: DiskFull.self) {
            _ = try await Self.banded(job, bandHeight: 8, with: strategy(named: "thread"), collector: collector)
        }
        #expect(delivered.withLock { $0 } == 1, "no band is handed over after a failed one")
    }

    @Test(
        "a cancelled banded render throws RenderCancelled and hands over no band after the cancel",
        arguments: concurrentStrategyNames)
    func cancelled(strategyName: String) async throws {
        let cancellation = CancellationFlag()
        let job = RenderJob(size: ImageSize(width: 64, height: 640), iterations: 50, colorScheme: .bw, workers: 2)
        let collector = BandCollector { rows in
            if rows.lowerBound == 16 { cancellation.cancel() }
            #expect(rows.lowerBound <= 16, "band \(rows) handed over after the cancel")
            return nil
        }
        await #expect(throws: RenderCancelled.self) {
            _ = try await Self.banded(
                job, bandHeight: 8, with: strategy(named: strategyName), cancellation: cancellation,
                collector: collector)
        }
    }
}
