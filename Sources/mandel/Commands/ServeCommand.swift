import ArgumentParser
import ImageFiles
import MandelOptions
import MandelServer
import MandelbrotCore
import Platform
import RenderModel
import StrategyCatalog

/// `mandel serve`: the explorer, a page in a browser whose tiles the chosen strategy renders.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Explore the set in a browser: a page whose tiles the chosen strategy renders.",
        discussion: """
            Prints the page's URL as its first line, then serves until SIGINT or SIGTERM, which \
            cancel the tiles under way and exit 0. Every tile is the same PNG as a 'mandel render' \
            (its X-Mandel-Command header gives the arguments); a tile whose browser moved on is \
            cancelled through the strategy's own cancel. The view, colour and work options set \
            the page's starting view and how tiles render; the page's size is the browser's. \
            GET /stats reports what the tiles cost (see docs/options.md).
            """
    )

    @Option(help: "The address to listen on (default: loopback only).")
    var host = "127.0.0.1"

    @Option(
        parsing: .unconditional, help: "The port, 0…65535; 0 lets the system choose one.",
        transform: { try ValueParsing.integer($0, allowed: "from 0 to 65535") })
    var port = 8080

    @Option(
        name: .customLong("strategy"),
        help: ArgumentHelp("The page's first strategy (see 'mandel strategies').", valueName: "name"))
    var strategy = StrategyChoice(StrategyCatalog.recommended)

    @Option(
        help: ArgumentHelp(
            "Who stops a tile whose browser moved on: flag (the shared flag every strategy checks) or native (only "
                + "the mechanism's own cancel; a running GCD block renders on, and the waste is counted) (default: "
                + "flag)."))
    var cancelBy: CancellationMode?

    @Option(
        parsing: .unconditional, help: "Tiles that may wait for a render, 0…10000; more are refused with 503.",
        transform: { try ValueParsing.integer($0, allowed: "from 0 to 10000") })
    var queue = 64

    @Option(
        parsing: .unconditional,
        help: "Tiles rendered at once, 1…64, each by the strategy's workers (default: 1: one tile's render at a time).",
        transform: { try ValueParsing.integer($0, allowed: "from 1 to 64") })
    var slots = 1

    @Option(
        help: ArgumentHelp(
            "The tiles' PNG compression: fast (a quarter of balanced's time on a tile, 10–20% larger), balanced or "
                + "small; each tile's X-Mandel-Command names it."))
    var compression = PNGCompression.fast

    @Option(
        parsing: .unconditional, help: "The most iterations a tile may ask for, 1…4294967294.",
        transform: { try ValueParsing.integer($0, allowed: "from 1 to \(Limits.maximumIterations)") })
    var maxIterations = 10_000_000

    @OptionGroup(title: "Starting view")
    var view: ViewOptions

    @OptionGroup(title: "Work split")
    var work: WorkOptions

    mutating func validate() throws {
        // Before any other check: the other checks of a preset's picture would ask for what serve never takes.
        if view.preset != nil { throw ValidationError("--preset is a fixed picture; the explorer starts at a view") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535 (got \(port))") }
        guard (1...64).contains(slots) else { throw ValidationError("--slots must be from 1 to 64 (got \(slots))") }
        guard (0...10000).contains(queue) else {
            throw ValidationError("--queue must be from 0 to 10000 tiles (got \(queue))")
        }
        guard (1...Limits.maximumIterations).contains(maxIterations) else {
            throw ValidationError(
                "--max-iterations must be from 1 to \(Limits.maximumIterations) (got \(maxIterations))")
        }
        try work.validateSingleValues(command: "serve", size: view.size)
        // The page's tiles are windows of its view: what a window refuses, the starting view does too.
        try BatchOptions.validateWindow(preset: nil, colorScheme: view.colorScheme)
        if view.iterationLimit > maxIterations {
            throw ValidationError(
                "--iterations \(view.iterationLimit) is more than --max-iterations \(maxIterations) lets a tile ask for"
            )
        }
        // The starting view is a view the page will ask for: refused now if a tile of it would be. The
        // page asks without the palette where the colouring uses none (bw, gray), as /config's start
        // names it all the same (mandel serve --color gray was refused for the palette it never gave).
        let usesPalette = view.colorScheme == .smooth || view.colorScheme == .histogram
        let asked = startQuery.filter {
            $0.key != "strategy" && (usesPalette || !["palette", "palette-cycle", "palette-offset"].contains($0.key))
        }
        do {
            _ = try ViewRequest(query: asked, needsWindow: false, limits: limits, work: work)
        } catch {
            throw ValidationError("the starting view: \(error.description)")
        }
    }

    private var startQuery: [(key: String, value: String)] {
        ExplorerServer.startQuery(of: view, strategy: strategy.strategy.name)
    }

    private var limits: RequestLimits { RequestLimits(maximumIterations: maxIterations) }

    func run() async throws {
        var settings = ExplorerServer.Settings(work: work)
        settings.host = host
        settings.port = port
        settings.start = startQuery
        settings.cancellationMode = cancelBy ?? .flag
        settings.queueCapacity = queue
        settings.slots = slots
        settings.compression = compression
        settings.limits = limits
        let server = try ExplorerServer(settings: settings)
        // SIGINT and SIGTERM end the server as asked (status 0, no line); any other signal that would
        // end the process stops it as it stops a render (128 + n, one line).
        let watch = SignalWatch(grace: 0, quietSignals: [SIGINT, SIGTERM])
        defer { watch.stop() }
        try await server.run(until: watch.cancellation) { url in
            // The first line on standard output, flushed: a script waits for it.
            try? StandardOutput.line(url)
        }
        if let signal = watch.stoppedBy, !watch.stoppedQuietly {
            printError(SignalWatch.describe(signal))
            throw ExitCode(watch.exitStatus)
        }
    }
}
