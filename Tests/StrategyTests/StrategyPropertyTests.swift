import Deadline
import MandelbrotCore
import PropertyBased
import Testing

/// Any strategy, split, order, worker count, tile, band height and histogram merge gives the
/// bytes serial gives for the same picture.
@Suite("Strategy properties")
struct StrategyPropertyTests {
    @Test("any strategy × split × order × workers × bands × merge gives serial's bytes")
    func sameBytesAsSerial() async {
        await propertyCheck(
            count: 40,
            input: zip(
                Gen.int(in: 0...(allStrategies.count - 1)).map { allStrategies[$0].name }, Gen<WorkSplit>.case,
                Gen<TileOrder>.case, Gen.int(in: 1...8)),
            zip(Gen.int(in: 1...60), Gen.int(in: 1...45), Gen.int(in: 1...40), Gen.int(in: 1...40)),
            zip(Gen<ColorScheme>.case, Gen<HistogramMerge>.case, Gen.int(in: 1...64), Gen.int(in: 0...20)),
            zip(Gen.double(in: -2...0.5), Gen.double(in: -1.2...1.2), Gen.double(in: 0...12), Gen.int(in: 1...2))
        ) { work, sizes, colouring, view in
            let (strategyName, split, askedOrder, workers) = work
            let (width, height, tileWidth, tileHeight) = sizes
            let (color, merge, batch, bandHeight) = colouring
            let (re, im, zoomExponent, supersampling) = view
            var job = RenderJob(
                size: ImageSize(width: width, height: height),
                region: .view(Viewport(centerReal: re, centerImaginary: im, zoom: zoomExponent.exp2)), iterations: 300,
                colorScheme: color, split: split,
                tileSize: TileSize(width: min(tileWidth, width), height: min(tileHeight, height)), workers: workers)
            job.supersampling = supersampling
            let label =
                "\(strategyName) \(split) \(askedOrder) \(workers) workers \(color) bands \(bandHeight) "
                + "\(merge)/\(batch)"
            // Centre first is for the tiles split of a picture rendered whole; bands stream what histogram
            // colouring needs whole, so a histogram picture is rendered whole.
            let banded = bandHeight > 0 && askedOrder == .rows && color != .histogram
            let order = split == .tiles && !banded ? askedOrder : .rows
            do {
                let expected = try await render(job, with: SerialStrategy()).0
                let strategy = strategy(named: strategyName)
                let sharing = HistogramSharing(merge: merge, batch: batch)
                if banded {
                    let collector = BandCollector()
                    let render = try PictureRender(job: job, bandHeight: min(bandHeight, height))
                    _ = try await withDeadline(waitingFor: label) {
                        try await render.run(strategy, sink: collector, settings: RunSettings(sharing: sharing))
                    }
                    #expect(collector.matches(expected), "\(label)")
                } else {
                    let render = try PictureRender(job: job, histogramMerges: [merge])
                    _ = try await withDeadline(waitingFor: label) {
                        try await render.run(strategy, settings: RunSettings(sharing: sharing, order: order))
                    }
                    let same = expected.withBytes { expected in render.canvas!.withBytes { $0.elementsEqual(expected) }
                    }
                    #expect(same, "\(label)")
                }
            } catch {
                Issue.record("\(label): \(error)")
            }
        }
    }
}
