// swift-tools-version: 6.1
import PackageDescription

// A package of its own, so the main build and CI never pull in the benchmark tooling.
// Run from this folder: swift package benchmark
let package = Package(
    name: "MandelBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so the reference below works whatever the checkout folder is called.
        .package(name: "mandel", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "MandelBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "MandelbrotCore", package: "mandel"),
                .product(name: "MandelStrategies", package: "mandel"),
                .product(name: "Platform", package: "mandel"),
                .product(name: "ImageFiles", package: "mandel"),
            ],
            path: "Benchmarks/MandelBenchmarks",
            swiftSettings: [.unsafeFlags(["-Xcc", "-march=native"])],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
