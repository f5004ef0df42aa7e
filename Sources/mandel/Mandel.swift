import ArgumentParser
import MandelOptions
import RenderModel

/// `mandel`: renders the Mandelbrot set with one threading strategy or compares them all.
struct Mandel: AsyncParsableCommand {
    static let version = MandelVersion.current

    static let configuration = CommandConfiguration(
        commandName: "mandel",
        abstract: "Render the Mandelbrot set and compare the threading strategies that render it.",
        discussion: """
            Every strategy (a manual Thread, an OperationQueue, GCD, …) renders the same \
            tiles into the same buffer and produces bit-identical pixels, so their timings \
            can be compared honestly. Exit codes: 0 success, 64 bad usage, 70 strategies \
            disagree (a bug), 71 out of memory, threads or file descriptors, 73 an output \
            cannot be created, 74 an output could not be written, 65 a part that 'join' \
            refuses, 66 a part it cannot read, 69 helper processes kept failing \
            (--strategy process), 128+n stopped by signal n \
            (130 Ctrl-C, 143 SIGTERM after its grace, 141 a closed pipe).
            """,
        version: version,
        subcommands: [
            RenderCommand.self, JoinCommand.self, CompareCommand.self, SweepCommand.self, StrategiesCommand.self,
            PalettesCommand.self, ServeCommand.self,
            HelperCommand.self,
        ]
    )
}
