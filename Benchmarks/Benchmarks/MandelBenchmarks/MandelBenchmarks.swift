import Benchmark
import Dispatch
import Foundation
import ImageFiles
import MandelbrotCore
import Platform
import StrategyCatalog

/// Five families: the kernels' raw speed, the per-pixel cost of each output and of the
/// general case, the PNG encoder by slice size and workers, each strategy on a fixed view
/// at several tile sizes, and the bare cost of one task in each mechanism.
///
/// The output and encoder benchmarks carry tolerances, checked against the static
/// thresholds stored in `Thresholds/` (`swift package benchmark thresholds check`); the
/// machine is shared, so they allow 25% at the median and 50% at the 90th percentile (the
/// stored thresholds are 90th percentiles, and two runs here differed by up to 46% there). Their names have no
/// spaces: the tool writes a threshold file with underscores for spaces, and then looks
/// for it by the name as it is.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .cpuTotal], timeUnits: .milliseconds,
        warmupIterations: 1, maxDuration: .seconds(3), maxIterations: 50)

    // MARK: - Kernels: iterations per second on one core

    // A boundary-heavy view with no cardioid in it, so the shortcut cannot flatter the SIMD kernel.
    let grid = SampleGrid(
        size: ImageSize(width: 256, height: 64),
        viewport: Viewport(centerReal: -0.743643887, centerImaginary: 0.131825904, zoom: 300))
    let limit = 2000
    var iterationsPerPass: UInt64 = 0
    var scratch = [UInt32](repeating: 0, count: 256)
    for imaginary in grid.imaginaryParts {
        iterationsPerPass += IterationKernel.scalar.countRow(
            realParts: grid.realParts, imaginary: imaginary, count: 256, limit: limit, counts: &scratch, smooth: nil)
    }
    for kernel in IterationKernel.allCases {
        // One pass is 256×64 pixels; the name says how many escape-time iterations it holds,
        // so throughput (passes per second) times that is iterations per second.
        Benchmark(
            "kernel \(kernel.rawValue), pass of \(iterationsPerPass / 1_000_000) M iterations",
            configuration: .init(metrics: [.wallClock, .throughput])
        ) { benchmark in
            var counts = [UInt32](repeating: 0, count: 256)
            for _ in benchmark.scaledIterations {
                var total: UInt64 = 0
                for imaginary in grid.imaginaryParts {
                    total += kernel.countRow(
                        realParts: grid.realParts, imaginary: imaginary, count: 256, limit: limit, counts: &counts,
                        smooth: nil)
                }
                blackHole(total)
            }
        }
    }

    // What a run may differ from the stored thresholds by, in per cent, before the check fails.
    let tolerance = BenchmarkThresholds(relative: [.p50: 25, .p90: 50])
    // Wall clock only: the tool stores a throughput's best run as its 90th percentile, and
    // then compares a run's worst with it.
    let tolerances: [BenchmarkMetric: BenchmarkThresholds] = [.wallClock: tolerance]

    // MARK: - Output: what each colouring costs per pixel beyond the kernel

    // The Benchmarks Game picture at N = 2048 on one thread: black and white marks one bit
    // per pixel from the lanes; gray stores counts and colours them; the same kernel runs.
    for color in [ColorScheme.bw, .gray] {
        Benchmark(
            "benchmarks-game-2048,serial,\(color.rawValue)",
            configuration: .init(metrics: [.wallClock], thresholds: tolerances)
        ) { benchmark in
            let job = RenderJob(
                size: ImageSize(width: 2048, height: 2048), region: .benchmarksGame, iterations: 50,
                colorScheme: color, split: .tiles, tileSize: TileSize(width: 512, height: 64), workers: 1)
            let render = try! PictureRender(job: job)
            for _ in benchmark.scaledIterations {
                let report = try! await render.run(SerialStrategy())
                blackHole(report.totalIterations)
            }
        }
    }

    // The general case on one thread: the default view in gray (counts only) and smooth
    // (smooth values, their logarithms and the palette), and a deep view whose kernel
    // dominates. The difference between the first two is what smooth colouring costs.
    let views: [(name: String, viewport: Viewport, iterations: Int, color: ColorScheme)] = [
        ("default-view-1200x800", .whole, 256, .gray),
        ("default-view-1200x800", .whole, 256, .smooth),
        ("seahorse-zoom-180-1500", Viewport(centerReal: -0.7453, centerImaginary: 0.1127, zoom: 180), 1500, .smooth),
    ]
    for view in views {
        Benchmark(
            "\(view.name),serial,\(view.color.rawValue)",
            configuration: .init(metrics: [.wallClock], thresholds: tolerances)
        ) { benchmark in
            let job = RenderJob(
                size: ImageSize(width: 1200, height: 800), region: .view(view.viewport), iterations: view.iterations,
                colorScheme: view.color, workers: 1)
            let render = try! PictureRender(job: job)
            for _ in benchmark.scaledIterations {
                let report = try! await render.run(SerialStrategy())
                blackHole(report.totalIterations)
            }
        }
    }

    // MARK: - The PNG encoder: slices compressed on several threads

    // A rendered 2048×1024 RGB picture (6 MiB), encoded at the default compression into
    // /dev/null: 6 MiB divided by the wall clock time is the encoder's throughput. It runs on
    // a serial queue of its own, as `mandel`'s writer does: called from the benchmark's task,
    // a cooperative thread, `concurrentPerform` found no second thread for most of the
    // samples (two workers took as long as one at the median, 40 ms at the fastest).
    // A slice is at most a 16th of the picture's rows (SliceGrid, so that a small picture can be cut
    // into parts): 64 rows of this picture, 384 KiB, so the 1024 KiB case runs 384 KiB slices.
    for sliceKiB in [64, 256, 1024] {
        for workers in [1, 2] {
            Benchmark(
                "png-encode-2048x1024,slices-\(sliceKiB)KiB,workers-\(workers)",
                configuration: .init(metrics: [.wallClock], thresholds: tolerances)
            ) { benchmark in
                let job = RenderJob(size: ImageSize(width: 2048, height: 1024), iterations: 256, workers: 2)
                let (picture, _) = try! await PictureRender.render(job, with: StrategyCatalog.all[0])
                let writerQueue = DispatchQueue(label: "mandel.bench.writer", qos: .userInitiated)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    await withCheckedContinuation { (encoded: CheckedContinuation<Void, Never>) in
                        writerQueue.async {
                            let output = try! OutputFile(path: "/dev/null")
                            let writer = try! PNGWriter(
                                output: output, width: 2048, height: 1024, channels: 3, texts: [], workers: workers,
                                sliceBytes: sliceKiB * 1024)
                            picture.withBytes { bytes in try! writer.write(rows: bytes, count: 1024) }
                            try! writer.finish()
                            output.discard()
                            encoded.resume()
                        }
                    }
                }
            }
        }
    }

    // MARK: - Strategies: a fixed view at several tile sizes

    for tile in [8, 32, 128] {
        for strategy in StrategyCatalog.all {
            Benchmark("render \(strategy.name) tile \(tile)") { benchmark in
                let job = RenderJob(
                    size: ImageSize(width: 600, height: 400), iterations: 256, colorScheme: .smooth, split: .tiles,
                    tileSize: TileSize(width: tile, height: tile), workers: ProcessorCount.available)
                let render = try! PictureRender(job: job)
                for _ in benchmark.scaledIterations {
                    let report = try! await render.run(strategy)
                    blackHole(report.totalIterations)
                }
            }
        }
    }

    // MARK: - The bare cost of one task, with empty work

    // Each measured iteration is a batch of 1,000 empty tasks: its time in ms is the cost of one task in µs.
    let tasks = 1000
    let perTask = Benchmark.Configuration(metrics: [.wallClock], timeUnits: .microseconds)

    Benchmark("1000 tasks: Thread start and exit", configuration: perTask) { benchmark in
        for _ in benchmark.scaledIterations {
            let group = DispatchGroup()
            for _ in 0..<tasks {
                group.enter()
                Thread { group.leave() }.start()
            }
            group.wait()
        }
    }

    Benchmark("1000 tasks: pthread_create and join", configuration: perTask) { benchmark in
        for _ in benchmark.scaledIterations {
            for _ in 0..<tasks {
                var thread = pthread_t()
                pthread_create(&thread, nil, { _ in nil }, nil)
                pthread_join(thread, nil)
            }
        }
    }

    Benchmark("1000 tasks: Operation on an OperationQueue", configuration: perTask) { benchmark in
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = ProcessorCount.available
        for _ in benchmark.scaledIterations {
            queue.addOperations((0..<tasks).map { _ in BlockOperation {} }, waitUntilFinished: true)
        }
    }

    Benchmark("1000 tasks: GCD async on a concurrent queue", configuration: perTask) { benchmark in
        let queue = DispatchQueue(label: "mandel.bench", attributes: .concurrent)
        for _ in benchmark.scaledIterations {
            let group = DispatchGroup()
            for _ in 0..<tasks { queue.async(group: group) {} }
            group.wait()
        }
    }

    Benchmark("1000 tasks: concurrentPerform iteration", configuration: perTask) { benchmark in
        for _ in benchmark.scaledIterations {
            DispatchQueue.concurrentPerform(iterations: tasks) { blackHole($0) }
        }
    }

    Benchmark("1000 tasks: Task in a TaskGroup", configuration: perTask) { benchmark in
        for _ in benchmark.scaledIterations {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<tasks { group.addTask {} }
            }
        }
    }
}
