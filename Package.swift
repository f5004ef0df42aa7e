// swift-tools-version: 6.1
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode (strict concurrency)
/// plus the upcoming features we want to hold ourselves to.
let sharedSwiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The kernel is the one place where the CPU's vector units matter: plain
/// `swift build -c release` emits SSE2 only, so the core is compiled for the
/// machine it runs on (AVX-512 here). See "Kernel" in the README.
let kernelSwiftSettings: [SwiftSetting] = sharedSwiftSettings + [
    .unsafeFlags(["-Xcc", "-march=native"]),
]

let package = Package(
    name: "mandel",
    products: [
        .executable(name: "mandel", targets: ["mandel"]),
        .library(name: "MandelbrotCore", targets: ["MandelbrotCore"]),
        .library(
            name: "MandelStrategies",
            targets: ["ThreadDriver", "OperationDriver", "DispatchDriver", "ApplyDriver", "TaskGroupDriver", "PThreadDriver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // MARK: - Compute core: views, kernels, work plans, buffers, colouring, the strategy contract
        .target(name: "MandelbrotCore", swiftSettings: kernelSwiftSettings),

        // MARK: - Strategy drivers: one threading mechanism each
        .target(name: "ThreadDriver", dependencies: ["MandelbrotCore"], swiftSettings: sharedSwiftSettings),
        .target(name: "OperationDriver", dependencies: ["MandelbrotCore"], swiftSettings: sharedSwiftSettings),
        .target(name: "DispatchDriver", dependencies: ["MandelbrotCore"], swiftSettings: sharedSwiftSettings),
        .target(name: "ApplyDriver", dependencies: ["MandelbrotCore"], swiftSettings: sharedSwiftSettings),
        .target(name: "TaskGroupDriver", dependencies: ["MandelbrotCore"], swiftSettings: sharedSwiftSettings),
        .target(name: "PThreadDriver", dependencies: ["MandelbrotCore"], swiftSettings: sharedSwiftSettings),

        // MARK: - Pictures of the work: ownership map, cost map, trace
        .target(name: "WorkVisuals", dependencies: ["MandelbrotCore"], swiftSettings: sharedSwiftSettings),

        // MARK: - Comparisons: statistics, tables, exports and charts
        .target(name: "Comparison", swiftSettings: sharedSwiftSettings),

        // MARK: - Image files over the system libpng
        .systemLibrary(name: "CLibPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .target(name: "PNGShim", dependencies: ["CLibPNG"]),
        .target(name: "ImageFiles", dependencies: ["PNGShim"], swiftSettings: sharedSwiftSettings),

        // MARK: - The command line
        .executableTarget(
            name: "mandel",
            dependencies: [
                "MandelbrotCore", "ThreadDriver", "OperationDriver", "DispatchDriver",
                "ApplyDriver", "TaskGroupDriver", "PThreadDriver", "ImageFiles", "Comparison", "WorkVisuals",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: sharedSwiftSettings
        ),

        // MARK: - Tests
        .testTarget(
            name: "MandelbrotCoreTests",
            dependencies: ["MandelbrotCore"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "StrategyTests",
            dependencies: [
                "MandelbrotCore", "ThreadDriver", "OperationDriver", "DispatchDriver",
                "ApplyDriver", "TaskGroupDriver", "PThreadDriver",
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "ComparisonTests",
            dependencies: ["Comparison"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "WorkVisualsTests",
            dependencies: ["WorkVisuals", "MandelbrotCore", "ThreadDriver"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "ImageFilesTests",
            dependencies: ["ImageFiles"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "MandelCommandTests",
            dependencies: ["mandel", "ImageFiles"],
            swiftSettings: sharedSwiftSettings
        ),
    ]
)
