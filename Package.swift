// swift-tools-version: 6.1
import Foundation
import PackageDescription

// Built and tested on Linux (x86_64, glibc) only. The few system calls that differ
// between platforms live in the Platform module; nothing else imports Glibc.

/// Settings every Swift target shares: Swift 6 language mode (strict concurrency)
/// plus the upcoming features we want to hold ourselves to.
let sharedSwiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Whether this machine's processor has 512-bit vectors (AVX-512F), as Linux lists its
/// features. The core is compiled for the machine it builds on (`-march=native`), and its
/// kernel's vectors are as wide as that machine's registers: `VECTORS_512` picks eight
/// lanes a vector, four otherwise. Either width gives the same pixels on any processor.
///
/// `MANDEL_VECTORS=256` in the environment builds the four-lane kernel for a 256-bit machine
/// (`-march=x86-64-v3`: AVX2, no AVX-512) whatever this processor has, so that the four-lane
/// path is tested and timed on a machine with AVX-512 too (with its own `--scratch-path`, as
/// `scripts/test` does): the binary then runs on any x86-64-v3 processor.
let buildsFourLanes = ProcessInfo.processInfo.environment["MANDEL_VECTORS"] == "256"
let hasVectors512: Bool = {
    if buildsFourLanes { return false }
    guard let cpuInfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return false }
    let flags = cpuInfo.split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
    return flags.split(separator: " ").contains("avx512f")
}()

/// The processor the pixel modules are compiled for: this one, or any AVX2 machine under `MANDEL_VECTORS=256`.
let targetMachine = buildsFourLanes ? "-march=x86-64-v3" : "-march=native"

/// Modules that touch every pixel are optimised in every configuration, debug and
/// sanitizer builds included: unoptimised SIMD code is a hundred times slower, and the
/// tests would spend their time waiting for it. The core is compiled for the machine it
/// runs on (plain `swift build -c release` emits SSE2 only; see "Kernel" in the README).
let pixelSwiftSettings: [SwiftSetting] =
    sharedSwiftSettings + [
        .unsafeFlags(["-Xcc", targetMachine]),
        .unsafeFlags(["-O"], .when(configuration: .debug)),
    ] + (hasVectors512 ? [.define("VECTORS_512")] : [])

/// The strategy drivers: one module per threading mechanism. Adding a strategy is a
/// module here, its target below, and one line in `StrategyCatalog`.
let strategyDrivers = [
    "ThreadDriver", "OperationDriver", "DispatchDriver", "ApplyDriver", "TaskGroupDriver", "PThreadDriver",
    "ProcessDriver",
]

/// The drivers that use Platform's system calls and locks (pthreads, `Locked`).
let driversUsingPlatform: Set = [
    "OperationDriver", "DispatchDriver", "TaskGroupDriver", "PThreadDriver", "ProcessDriver",
]

/// Property-based checks (random inputs, shrunk failures) for the test targets that state a rule for all inputs.
let propertyBased: Target.Dependency = .product(name: "PropertyBased", package: "swift-property-based")

let package = Package(
    name: "mandel",
    products: [
        .executable(name: "mandel", targets: ["mandel"]),
        .library(name: "MandelbrotCore", targets: ["MandelbrotCore"]),
        .library(name: "Platform", targets: ["Platform"]),
        .library(name: "ImageFiles", targets: ["ImageFiles"]),
        .library(name: "MandelStrategies", targets: ["StrategyCatalog"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // The explorer's HTTP server; no default traits (swift-configuration, full Foundation), which it does not need.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // MARK: - What differs between operating systems: clocks, processor time, /proc, limits
        .target(name: "Platform", swiftSettings: sharedSwiftSettings),

        // MARK: - Compute core: views, kernels, work plans, buffers, colouring, the strategy contract
        .target(
            name: "MandelbrotCore", dependencies: ["Platform", "AtomicShim", "LaneBits", "PaletteLanes", "DeepShim"],
            swiftSettings: pixelSwiftSettings),
        // Byte-wide atomic updates for bilevel rows, which Swift's atomics cannot do on raw memory.
        .target(name: "AtomicShim"),
        // A coverage build's counts written before `_exit`, which runs no exit handler (scripts/coverage).
        .target(name: "CoverageShim"),
        // Vector lanes read as bits in one instruction, which Swift's SIMD masks cannot be.
        .target(name: "LaneBits"),
        // Deep zoom: the reference orbit in GNU MPFR, the pixels as perturbations of it (see docs/deep-zoom.md).
        .systemLibrary(name: "CMPFR", pkgConfig: "mpfr", providers: [.apt(["libmpfr-dev"])]),
        .target(
            name: "DeepShim", dependencies: ["CMPFR"],
            cSettings: [.unsafeFlags(["-O3", targetMachine])],
            linkerSettings: [.linkedLibrary("mpfr"), .linkedLibrary("gmp")]),
        // Smooth colouring eight pixels at a time: gathers and roundings Swift's SIMD types do lane by lane.
        .target(name: "PaletteLanes"),

        // MARK: - Strategy drivers: one threading mechanism each, and the catalog that lists them
    ]
        + strategyDrivers.map { driver in
            .target(
                name: driver,
                dependencies: ["MandelbrotCore"] + (driversUsingPlatform.contains(driver) ? ["Platform"] : []),
                swiftSettings: sharedSwiftSettings)
        } + [
            .target(
                name: "StrategyCatalog",
                dependencies: ["MandelbrotCore"] + strategyDrivers.map { .target(name: $0) },
                swiftSettings: sharedSwiftSettings),

            // MARK: - Pictures of the work: ownership map, cost map, trace
            .target(name: "WorkVisuals", dependencies: ["MandelbrotCore"], swiftSettings: pixelSwiftSettings),

            // MARK: - What the process does while it renders: main-queue lateness, threads, memory
            .target(
                name: "Probes",
                dependencies: [
                    "Platform", "MandelbrotCore", .product(name: "Histogram", package: "hdrhistogram-swift"),
                ],
                swiftSettings: sharedSwiftSettings),

            // MARK: - Comparisons: statistics, tables, exports and charts
            .target(
                name: "Comparison", dependencies: ["MandelbrotCore", "Platform"], swiftSettings: sharedSwiftSettings),

            // MARK: - Image files over the system libpng
            .systemLibrary(name: "CLibPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
            .target(
                name: "PNGShim", dependencies: ["CLibPNG"],
                cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))],
                linkerSettings: [.linkedLibrary("z")]),
            .target(name: "ImageFiles", dependencies: ["PNGShim", "Platform"], swiftSettings: pixelSwiftSettings),

            // MARK: - The command line's options and the rules of their values, which the server follows too
            .target(
                name: "MandelOptions",
                dependencies: [
                    "MandelbrotCore", "StrategyCatalog", "ImageFiles", "Comparison", "Platform",
                    .product(name: "ArgumentParser", package: "swift-argument-parser"),
                ],
                swiftSettings: sharedSwiftSettings
            ),

            // MARK: - The render model: one render or one comparison from its options to its files and report
            .target(
                name: "RenderModel",
                dependencies: [
                    "MandelOptions", "MandelbrotCore", "StrategyCatalog", "ImageFiles", "Comparison", "WorkVisuals",
                    "Platform", "Probes", "ProcessDriver", "CoverageShim",
                    .product(name: "ArgumentParser", package: "swift-argument-parser"),
                ],
                swiftSettings: sharedSwiftSettings
            ),

            // MARK: - The explorer: `mandel serve`, tiles of one view rendered by the chosen strategy, and its page
            .target(
                name: "MandelServer",
                dependencies: [
                    "RenderModel", "MandelOptions", "MandelbrotCore", "StrategyCatalog", "ImageFiles", "Comparison",
                    "Platform", "ProcessDriver",
                    .product(name: "ArgumentParser", package: "swift-argument-parser"),
                    .product(name: "Hummingbird", package: "hummingbird"),
                    .product(name: "HTTPTypes", package: "swift-http-types"),
                    .product(name: "Logging", package: "swift-log"),
                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                    .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                ],
                exclude: ["Page"],
                swiftSettings: sharedSwiftSettings,
                plugins: ["EmbedPage"]
            ),
            // The page's files built into mandel: a generated Swift file, so that the program serves its page
            // wherever it is copied.
            .executableTarget(name: "EmbedFiles", swiftSettings: sharedSwiftSettings),
            .plugin(name: "EmbedPage", capability: .buildTool(), dependencies: ["EmbedFiles"]),

            // MARK: - The command line: parsing the commands and printing what they report
            .executableTarget(
                name: "mandel",
                dependencies: [
                    "MandelOptions", "RenderModel", "MandelServer", "MandelbrotCore", "StrategyCatalog", "ImageFiles",
                    "Comparison", "WorkVisuals", "Platform", "Probes", "ProcessDriver",
                    .product(name: "ArgumentParser", package: "swift-argument-parser"),
                ],
                swiftSettings: sharedSwiftSettings
            ),

            // MARK: - Tests
            // Waits with a deadline, for every test target that waits on a render.
            .target(name: "Deadline", path: "Tests/Deadline", swiftSettings: sharedSwiftSettings),
            // The real `mandel` binary run as a child process, and a raw HTTP/1.1 client of its server.
            .target(
                name: "ProcessTestSupport", dependencies: ["Deadline"], path: "Tests/ProcessTestSupport",
                swiftSettings: sharedSwiftSettings),
            // The process sampler in a process whose threads a test decides (ProcessSamplerTests).
            .executableTarget(
                name: "sampler-probe", dependencies: ["Probes", "Platform"], path: "Tests/SamplerProbe",
                swiftSettings: sharedSwiftSettings),
            // Random lanes and the bits they give, for the lane-bit tests of both builds.
            .target(name: "LaneFixtures", path: "Tests/LaneFixtures", swiftSettings: sharedSwiftSettings),
            .testTarget(
                name: "MandelbrotCoreTests",
                dependencies: [
                    "MandelbrotCore", "Platform", "LaneBits", "LaneFixtures", "Deadline", "DeepShim", propertyBased,
                ],
                swiftSettings: sharedSwiftSettings
            ),
            // Built for this machine's vector units, so that the instruction paths are the ones tested.
            .testTarget(
                name: "LaneBitsNativeTests",
                dependencies: ["LaneBits", "LaneFixtures"],
                swiftSettings: sharedSwiftSettings + [.unsafeFlags(["-Xcc", targetMachine])]
            ),
            // Built for this machine's vector units, so that the eight-lane path is the one tested.
            .testTarget(
                name: "PaletteLanesTests",
                dependencies: ["PaletteLanes"],
                swiftSettings: sharedSwiftSettings + [.unsafeFlags(["-Xcc", targetMachine])]
            ),
            .testTarget(
                name: "StrategyTests",
                dependencies: ["MandelbrotCore", "StrategyCatalog", "Comparison", "Deadline", propertyBased]
                    + strategyDrivers.map { .target(name: $0) },
                swiftSettings: sharedSwiftSettings
            ),
            .testTarget(
                name: "ComparisonTests",
                dependencies: ["Comparison", "MandelbrotCore"],
                swiftSettings: sharedSwiftSettings
            ),
            .testTarget(
                name: "WorkVisualsTests",
                dependencies: ["WorkVisuals", "MandelbrotCore", "StrategyCatalog", "Deadline"],
                swiftSettings: sharedSwiftSettings
            ),
            .testTarget(
                name: "ImageFilesTests",
                dependencies: ["ImageFiles"],
                swiftSettings: sharedSwiftSettings
            ),
            .testTarget(
                name: "MandelServerTests",
                dependencies: [
                    "MandelServer", "MandelOptions", "RenderModel", "MandelbrotCore", "ImageFiles", "Deadline",
                    "ProcessTestSupport", .product(name: "HummingbirdTesting", package: "hummingbird"),
                ],
                swiftSettings: sharedSwiftSettings
            ),
            // The explorer's page in a real browser (chromium driven over WebDriver), against the real `mandel serve`.
            .testTarget(
                name: "ExplorerPageTests",
                dependencies: ["mandel", "ImageFiles", "Deadline", "ProcessTestSupport"],
                swiftSettings: sharedSwiftSettings
            ),
            .testTarget(
                name: "MandelCommandTests",
                dependencies: [
                    "mandel", "sampler-probe", "MandelOptions", "RenderModel", "ImageFiles", "MandelbrotCore",
                    "StrategyCatalog", "Comparison", "ProcessDriver", "Probes", "Deadline", "ProcessTestSupport",
                    "DeepShim", propertyBased,
                ],
                swiftSettings: sharedSwiftSettings
            ),
        ]
)
