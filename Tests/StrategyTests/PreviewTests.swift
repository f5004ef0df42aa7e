import Deadline
import Dispatch
import MandelbrotCore
import Platform
import Testing

@Suite("Preview: a coarse picture first")
struct PreviewTests {
    static func job(color: ColorScheme, split: WorkSplit, supersampling: Int = 1, workers: Int = 3) -> RenderJob {
        RenderJob(
            size: ImageSize(width: 101, height: 67),
            region: .view(Viewport(centerReal: -0.7, centerImaginary: 0.2, zoom: 2)), iterations: 300,
            colorScheme: color, split: split, tileSize: TileSize(width: 16, height: 16), workers: workers,
            supersampling: supersampling)
    }

    @Test(
        "the preview is every K-th pixel of the full picture, on the main queue before the full one completes",
        arguments: allStrategies.map(\.name), WorkSplit.allCases)
    func preview(strategyName: String, split: WorkSplit) async throws {
        DispatchQueue.main.setSpecific(key: ContractWatch.mainQueueKey, value: 42)
        for (color, supersampling, every) in [
            (ColorScheme.smooth, 1, 3), (.bw, 1, 4), (.gray, 2, 5), (.smooth, 1, 101),
        ] {
            let job = Self.job(color: color, split: split, supersampling: supersampling)
            let (plain, _) = try await withDeadline(waitingFor: "serial rendering the plain picture") {
                try await PictureRender.render(job, with: SerialStrategy())
            }
            let render = try PictureRender(job: job, previewEvery: every)
            let delivered = Locked<(seconds: Double, onMainQueue: Bool, checksum: UInt64)?>(nil)
            let previewCanvas = try #require(render.previewCanvas)
            let strategy = strategy(named: strategyName)
            let report = try await withDeadline(waitingFor: "\(strategyName) rendering with a preview every \(every)") {
                try await render.run(
                    strategy,
                    onPreview: { seconds in
                        let onMain = DispatchQueue.getSpecific(key: ContractWatch.mainQueueKey) == 42
                        delivered.withLock { $0 = (seconds, onMain, previewCanvas.checksum) }
                    })
            }
            let label = "\(strategyName) \(split) \(color) every \(every)"
            #expect(render.canvas!.checksum == plain.checksum, "the full picture is unchanged: \(label)")
            let preview = try #require(delivered.withLock { $0 }, "no preview: \(label)")
            #expect(preview.onMainQueue, "\(label)")
            #expect(preview.checksum == previewCanvas.checksum, "the preview was complete when delivered: \(label)")
            #expect(report.firstPictureSeconds == preview.seconds)
            // The dependency: no tile of the full picture started before the preview's last tile ended.
            let previewEnd = try #require(report.previewTiles.map(\.end).max())
            let fullStart = try #require(report.tiles.map(\.start).min())
            #expect(fullStart >= previewEnd, "\(label)")
            #expect(report.previewTiles.count == PictureRender.previewPlanTileCount(of: job, every: every))
            #expect(preview.seconds <= report.wallSeconds, "\(label)")
            let size = PictureRender.previewSize(of: job.size, every: every)
            #expect(previewCanvas.size == size)
            for y in 0..<size.height {
                for x in 0..<size.width where previewCanvas.pixel(x: x, y: y) != plain.pixel(x: x * every, y: y * every)
                {
                    Issue.record("pixel \(x),\(y) differs from \(x * every),\(y * every): \(label)")
                    return
                }
            }
        }
    }
}
