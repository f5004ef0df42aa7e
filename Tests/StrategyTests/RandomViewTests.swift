import Comparison
import Foundation
import MandelbrotCore
import StrategyCatalog
import Testing

@Suite("Random views")
struct RandomViewTests {
    static let primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47]

    /// A random job: sizes from 1×1 through primes to 48, any split, tile, worker count and colour.
    static func randomJob(_ random: inout SplitMix64) -> RenderJob {
        func side() -> Int {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: 1
            case 1: primes.randomElement(using: &random)!
            default: Int.random(in: 1...48, using: &random)
            }
        }
        let size = ImageSize(width: side(), height: side())
        let viewport = Viewport(
            centerReal: Double.random(in: -2.2...0.8, using: &random),
            centerImaginary: Double.random(in: -1.3...1.3, using: &random),
            zoom: Double.random(in: 0...14, using: &random).exp2)
        return RenderJob(
            size: size,
            region: Int.random(in: 0..<10, using: &random) == 0 ? .benchmarksGame : .view(viewport),
            iterations: Int.random(in: 1...400, using: &random),
            colorScheme: ColorScheme.allCases.randomElement(using: &random)!,
            split: WorkSplit.allCases.randomElement(using: &random)!,
            tileSize: TileSize(
                width: Int.random(in: 1...size.width, using: &random),
                height: Int.random(in: 1...size.height, using: &random)),
            workers: Int.random(in: 1...8, using: &random),
            kernel: Int.random(in: 0..<4, using: &random) == 0 ? .scalar : .simd,
            julia: Int.random(in: 0..<4, using: &random) == 0
                ? JuliaConstant(
                    real: Double.random(in: -1.5...0.5, using: &random),
                    imaginary: Double.random(in: -1...1, using: &random))
                : nil,
            supersampling: Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 2...3, using: &random) : 1)
    }

    @Test("every strategy matches serial on 250 random views", arguments: 0..<5)
    func randomViews(batch: UInt64) async throws {
        var random = SplitMix64(seed: 0x6d61_6e64 + batch)
        for case_ in 0..<50 {
            var job = Self.randomJob(&random)
            if case .benchmarksGame = job.region {
                job.julia = nil
                job.supersampling = 1
                job.size = ImageSize(width: job.size.width, height: job.size.width)
                job.iterations = 50
                job.tileSize = TileSize(
                    width: min(job.tileSize.width, job.size.width), height: min(job.tileSize.height, job.size.width))
            }
            let (expected, expectedReport) = try await render(job, with: SerialStrategy())
            // The reference: a scalar serial render must agree with whichever kernel the job uses.
            var scalarJob = job
            scalarJob.kernel = .scalar
            let (scalar, _) = try await render(scalarJob, with: SerialStrategy())
            #expect(scalar.checksum == expected.checksum, "batch \(batch) case \(case_): kernels differ")
            // Helper processes cost a start each: process takes every fifth view (50 of the 250).
            for strategy in StrategyCatalog.concurrent where strategy.name != "process" || case_ % 5 == 0 {
                let (canvas, report) = try await render(job, with: strategy)
                #expect(
                    canvas.checksum == expected.checksum,
                    "batch \(batch) case \(case_): \(strategy.name) differs on \(job.size) \(job.split)")
                #expect(report.totalIterations == expectedReport.totalIterations)
            }
        }
    }
}

extension Double {
    /// 2 raised to this power.
    var exp2: Double { Foundation.exp2(self) }
}
