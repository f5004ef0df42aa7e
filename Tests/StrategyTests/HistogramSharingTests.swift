import Deadline
import MandelbrotCore
import Testing

@Suite("Sharing the histogram")
struct HistogramSharingTests {
    /// A histogram view whose tiles are small enough that every worker merges often.
    static func job(workers: Int = 3, supersampling: Int = 1) -> RenderJob {
        RenderJob(
            size: ImageSize(width: 97, height: 61),
            region: .view(Viewport(centerReal: -0.745, centerImaginary: 0.11, zoom: 40)), iterations: 400,
            colorScheme: .histogram, split: .tiles, tileSize: TileSize(width: 16, height: 8), workers: workers,
            supersampling: supersampling)
    }

    /// Renders `job` whole with `strategy`, merging the histogram as `sharing` says.
    static func render(
        _ job: RenderJob, with strategy: any RenderStrategy, sharing: HistogramSharing
    ) async throws -> (PixelBuffer, RenderReport) {
        let render = try PictureRender(job: job, histogramMerges: [sharing.merge])
        let report = try await withDeadline(waitingFor: "\(strategy.name) rendering with \(sharing)") {
            try await render.run(strategy, settings: RunSettings(sharing: sharing))
        }
        return (render.canvas!, report)
    }

    @Test(
        "the same pixels for every merge mechanism, batch size and strategy",
        arguments: allStrategies.map(\.name))
    func identical(strategyName: String) async throws {
        // Supersampled pictures merge k×k samples per pixel: once, at one batch size.
        for (supersampling, batches) in [(1, [1, 7, 4096]), (2, [7])] {
            let job = Self.job(supersampling: supersampling)
            let (expected, _) = try await Self.render(job, with: SerialStrategy(), sharing: .standard)
            for merge in HistogramMerge.allCases {
                for batch in batches {
                    let sharing = HistogramSharing(merge: merge, batch: batch)
                    let (canvas, report) = try await Self.render(
                        job, with: strategy(named: strategyName), sharing: sharing)
                    #expect(
                        canvas.checksum == expected.checksum,
                        "\(strategyName) \(merge) batch \(batch) supersampling \(supersampling)")
                    #expect(report.merge?.sharing == sharing)
                }
            }
        }
    }

    @Test("every escaped sample is merged once, in batches of the size asked for", arguments: HistogramMerge.allCases)
    func counted(merge: HistogramMerge) async throws {
        let job = Self.job()
        // The escaped samples, counted from the definition.
        let grid = SampleGrid.of(job)
        var escaped: UInt64 = 0
        for y in 0..<job.size.height {
            for x in 0..<job.size.width
            where EscapeTime.count(real: grid.realParts[x], imaginary: grid.imaginaryParts[y], limit: 400) < 400 {
                escaped += 1
            }
        }
        let tiles = UInt64(job.plan().tileCount)
        for batch in [1, 5, 1 << 20] {
            let (_, report) = try await Self.render(
                job, with: strategy(named: "gcd"), sharing: HistogramSharing(merge: merge, batch: batch))
            let statistics = try #require(report.merge)
            #expect(statistics.values == escaped, "\(merge) batch \(batch)")
            // Each tile merges full batches, then what is left: at most one batch more per tile.
            let full = escaped / UInt64(batch)
            #expect(UInt64(statistics.batches) >= full && UInt64(statistics.batches) <= full + tiles)
            if batch == 1 { #expect(UInt64(statistics.batches) == escaped) }
            #expect(statistics.mergeSeconds > 0)
            // Merging and waiting happen on the workers and the merge queue, within the render:
            // at most the wall time on each of those threads.
            let threads = Double(job.workers + 1)
            #expect(
                statistics.mergeSeconds + statistics.waitSeconds <= report.wallSeconds * threads,
                Comment(
                    rawValue: "\(merge) batch \(batch): \(statistics.mergeSeconds) s merging, "
                        + "\(statistics.waitSeconds) s waiting, \(report.wallSeconds) s wall")
            )
            if merge == .atomic || merge == .private {
                #expect(statistics.waitSeconds == 0, "\(merge) has nothing to wait for")
            } else {
                #expect(statistics.waitSeconds > 0, "\(merge) hands its batches over")
            }
        }
    }

    @Test(
        "merging and waiting take no more than the render's wall time on its workers and merge queue",
        arguments: HistogramMerge.allCases)
    func mergeTimeBounded(merge: HistogramMerge) async throws {
        // A picture with tens of thousands of escaped samples, merged one at a time: enough merging
        // that the time it reports, in the wrong unit, would pass the bound many times over.
        var job = Self.job()
        job.size = ImageSize(width: 320, height: 240)
        let (_, report) = try await Self.render(
            job, with: strategy(named: "thread"), sharing: HistogramSharing(merge: merge, batch: 1))
        let statistics = try #require(report.merge)
        #expect(statistics.values > 10_000)
        let threads = Double(job.workers + 1)
        #expect(statistics.mergeSeconds > 0 && statistics.waitSeconds >= 0)
        #expect(
            statistics.mergeSeconds + statistics.waitSeconds <= report.wallSeconds * threads,
            Comment(
                rawValue: "\(merge): \(statistics.mergeSeconds) s merging, \(statistics.waitSeconds) s waiting, "
                    + "\(report.wallSeconds) s wall")
        )
    }

    @Test("a render without histogram colouring has no merge statistics")
    func noHistogram() async throws {
        var job = Self.job()
        job.colorScheme = .smooth
        let (_, report) = try await Self.render(
            job, with: strategy(named: "thread"), sharing: HistogramSharing(merge: .mutex, batch: 3))
        #expect(report.merge == nil)
    }
}
