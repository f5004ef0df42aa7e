import Deadline
import MandelbrotCore
import Testing

/// Tiles narrower than the vector kernel's group render several rows at once, packed into its
/// lanes: the pixels, the cost map's counts and the iterations are those of wide tiles.
@Suite("Narrow tiles")
struct NarrowTileTests {
    static let narrow = [
        TileSize(width: 1, height: 1), TileSize(width: 4, height: 4), TileSize(width: 7, height: 5),
        TileSize(width: 3, height: 61), TileSize(width: 31, height: 2),
    ]

    static func render(_ job: RenderJob) async throws -> (PixelBuffer, RenderReport) {
        try await withDeadline(waitingFor: "a serial render with tiles \(job.tileSize)") {
            try await PictureRender.render(job, with: SerialStrategy())
        }
    }

    @Test(
        "narrow tiles give the pixels and iterations of 64x64 tiles, for every colouring, a Julia set and both kernels",
        arguments: [ColorScheme.smooth, .gray, .histogram, .bw], IterationKernel.allCases)
    func sameAsWideTiles(color: ColorScheme, kernel: IterationKernel) async throws {
        for julia in [nil, JuliaConstant(real: -0.8, imaginary: 0.156)] {
            var job = RenderJob(
                size: ImageSize(width: 97, height: 61),
                region: .view(
                    Viewport(
                        centerReal: julia == nil ? -0.745 : 0, centerImaginary: julia == nil ? 0.11 : 0,
                        zoom: julia == nil ? 40 : 0.9)),
                iterations: 700, colorScheme: color, tileSize: TileSize(width: 64, height: 64), kernel: kernel)
            job.julia = julia
            let (expected, wideReport) = try await Self.render(job)
            for tile in Self.narrow {
                job.tileSize = tile
                let (canvas, report) = try await Self.render(job)
                let label = "\(color) \(kernel) tile \(tile) julia \(julia != nil)"
                #expect(canvas.checksum == expected.checksum, "\(label)")
                #expect(report.totalIterations == wideReport.totalIterations, "\(label)")
            }
        }
    }

    /// A deep view's narrow tiles take the other path of the packed rows: each row goes to the
    /// perturbation loop alone, its counts and smooth values to that row's place in the tile's. The
    /// view escapes almost everywhere (99% of its pixels, 360 counts), so every colouring reads them:
    /// at 1e12 the same centre is all inside the set at 1,500 iterations, one colour whatever the values.
    @Test(
        "a deep view's narrow tiles give the pixels and iterations of 64x64 tiles, for every colouring",
        arguments: [ColorScheme.smooth, .gray, .histogram, .bw])
    func deepSameAsWideTiles(color: ColorScheme) async throws {
        let view = try #require(
            DeepView(
                centerReal: "-0.743643887037158704752191506114774",
                centerImaginary: "0.131825904205311970493132056385139", zoom: "1e9"))
        var job = RenderJob(
            size: ImageSize(width: 53, height: 37), region: .view(view.approximateViewport), iterations: 1500,
            colorScheme: color, tileSize: TileSize(width: 64, height: 64))
        job.deep = view
        let (expected, wideReport) = try await Self.render(job)
        for tile in Self.narrow {
            job.tileSize = tile
            let (canvas, report) = try await Self.render(job)
            #expect(canvas.checksum == expected.checksum, "\(color) tile \(tile)")
            #expect(report.totalIterations == wideReport.totalIterations, "\(color) tile \(tile)")
        }
    }
}
