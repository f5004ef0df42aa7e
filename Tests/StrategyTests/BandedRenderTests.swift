import MandelbrotCore
import Synchronization
import Testing

/// Collects delivered bands into one whole picture's bytes, checking they arrive in order.
final class BandCollector: Sendable {
    private let bytes = Mutex<[UInt8]>([])
    private let nextRow = Mutex(0)
    private let checksum = Mutex(PixelChecksum())

    func deliver(_ band: PixelBuffer, rows: Range<Int>) -> CPUTime {
        nextRow.withLock { next in
            #expect(rows.lowerBound == next, "bands arrive top to bottom")
            next = rows.upperBound
        }
        #expect(band.size.height == rows.count)
        band.withBytes { band in
            checksum.withLock { $0.add(band) }
            bytes.withLock { $0 += band }
        }
        return CPUTime(user: 0, system: 0)
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
    @MainActor
    static func banded(_ job: RenderJob, bandHeight: Int, with strategy: any RenderStrategy) async throws -> (BandCollector, RenderReport) {
        let collector = BandCollector()
        let render = BandedRender(job: job, bandHeight: bandHeight)
        let report = try await render.run(strategy) { band, rows in collector.deliver(band, rows: rows) }
        return (collector, report)
    }

    @Test("banded output is identical to the whole picture for every strategy, split and colouring",
          arguments: allStrategies.map(\.name), [ColorScheme.bw, .smooth, .histogram])
    func identical(strategyName: String, color: ColorScheme) async throws {
        let strategy = strategy(named: strategyName)
        for split in WorkSplit.allCases {
            for (bandHeight, supersampling) in [(1, 1), (7, 2), (16, 1)] {
                let job = RenderJob(
                    size: ImageSize(width: 41, height: 29), region: .view(Viewport(centerReal: -0.75, centerImaginary: 0.1, zoom: 3)),
                    iterations: 300, colorScheme: color, split: split, tileSize: TileSize(width: 16, height: 8), workers: 3,
                    supersampling: supersampling)
                let (whole, _) = await render(job, with: SerialStrategy())
                let (collector, report) = try await Self.banded(job, bandHeight: bandHeight, with: strategy)
                let label = "\(strategyName) \(split) \(color) bands of \(bandHeight), \(supersampling)x"
                #expect(collector.rowsDelivered == 29, "\(label)")
                #expect(collector.matches(whole), "\(label)")
                #expect(collector.streamedChecksum == whole.checksum, "the running checksum equals the whole picture's: \(label)")
                #expect(!report.wasCancelled)
                #expect(report.totalIterations > 0)
            }
        }
    }

    @Test("the Benchmarks Game preset streams identically too")
    func benchmarksGame() async throws {
        let job = RenderJob(size: ImageSize(width: 201, height: 201), region: .benchmarksGame, iterations: 50, colorScheme: .bw,
                            split: .rows, workers: 2)
        let (whole, _) = await render(job, with: SerialStrategy())
        let (collector, _) = try await Self.banded(job, bandHeight: 13, with: strategy(named: "gcd"))
        #expect(collector.matches(whole))
    }

    @Test("records stay bounded: one per band and worker, not one per tile")
    func boundedRecords() async throws {
        let job = RenderJob(size: ImageSize(width: 128, height: 256), iterations: 100, colorScheme: .bw,
                            tileSize: TileSize(width: 4, height: 4), workers: 2)
        let (_, report) = try await Self.banded(job, bandHeight: 32, with: strategy(named: "apply"))
        let tiles = BandedRender.tilesPerPass(of: job, bandHeight: 32)
        #expect(tiles == 32 * 64)
        #expect(report.tiles.count <= 8 * 2, "8 bands × at most 2 workers, not \(tiles) tile records")
        #expect(Set(report.tiles.map(\.rect.y)) == Set(stride(from: 0, to: 256, by: 32)))
        let (_, whole) = await render(job, with: SerialStrategy())
        #expect(report.totalIterations == whole.totalIterations, "every tile's iterations are kept in the aggregate")
    }

    @Test("a delivery that fails stops the render and its error comes back")
    func failingDelivery() async throws {
        struct DiskFull: Error {}
        let job = RenderJob(size: ImageSize(width: 64, height: 640), iterations: 50, colorScheme: .bw, workers: 2)
        let delivered = Mutex(0)
        await #expect(throws: DiskFull.self) {
            _ = try await BandedRender(job: job, bandHeight: 8).run(strategy(named: "thread")) { _, _ in
                delivered.withLock { $0 += 1 }
                throw DiskFull()
            }
        }
        #expect(delivered.withLock { $0 } == 1, "no band is handed over after a failed one")
    }

    @Test("a cancelled banded render throws Cancelled", arguments: concurrentStrategyNames)
    func cancelled(strategyName: String) async throws {
        let cancellation = CancellationFlag()
        let job = RenderJob(size: ImageSize(width: 64, height: 640), iterations: 50, colorScheme: .bw, workers: 2)
        let render = BandedRender(job: job, bandHeight: 8, cancellation: cancellation)
        await #expect(throws: BandedRender.Cancelled.self) {
            _ = try await render.run(strategy(named: strategyName)) { _, rows in
                if rows.lowerBound == 16 { cancellation.cancel() }
                return CPUTime(user: 0, system: 0)
            }
        }
    }
}
