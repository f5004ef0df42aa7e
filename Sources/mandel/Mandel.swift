import ArgumentParser

/// `mandel`: renders the Mandelbrot set with one threading strategy or compares them all.
@main
struct Mandel: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "mandel",
        abstract: "Render the Mandelbrot set and compare the threading strategies that render it.",
        discussion: """
            Every strategy (a manual Thread, an OperationQueue, GCD, …) renders the same \
            tiles into the same buffer and produces bit-identical pixels, so their timings \
            can be compared honestly. Exit codes: 0 success, 64 bad usage, 73 output cannot \
            be created, 74 output could not be written, 130 interrupted (Ctrl-C).
            """,
        version: version,
        subcommands: [RenderCommand.self, CompareCommand.self, SweepCommand.self, StrategiesCommand.self, PalettesCommand.self]
    )
}
