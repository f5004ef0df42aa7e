import Hummingbird
import Logging
package import MandelOptions
package import MandelbrotCore
import RenderModel
import ServiceLifecycle

extension ExplorerServer {
    /// Serves until `stop` is set (by a signal): then it cancels every tile under way, stops
    /// accepting, and returns once the connections have closed.
    ///
    /// The stop comes from the command's signal watch, whose handler writes to a pipe that a
    /// thread of its own reads, never from Dispatch's signal sources: on Linux those lose signals
    /// under load, and reach their handler through Dispatch's pool, which a `gcd` tile fills
    /// (measured with swift-service-lifecycle's signal handling: the shutdown began 1.4 s after
    /// SIGTERM during a `gcd` tile).
    ///
    /// - Parameters:
    ///   - stop: Set when the server should go.
    ///   - listening: Called once, with the server's URL, when it accepts connections (with the
    ///     port the system chose for port 0).
    package func run(until stop: CancellationFlag, listening: @escaping @Sendable (String) -> Void) async throws {
        var logger = Logger(label: "mandel.serve")
        logger.logLevel = .error
        let host = settings.host
        let app = Application(
            router: router(),
            configuration: .init(address: .hostname(host, port: settings.port), serverName: "mandel"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let shownHost = host.contains(":") ? "[\(host)]" : host
                listening("http://\(shownHost):\(port)/")
            },
            logger: logger)
        // A group shuts its services down last to first: the watch stops the tiles under way
        // before the server waits for its connections, which then close at once.
        let group = ServiceGroup(configuration: .init(services: [.init(service: app)], logger: logger))
        let registration = stop.onCancel { [self, threads] in
            stopEverything()
            Task(executorPreference: threads) { await group.triggerGracefulShutdown() }
        }
        defer { if let registration { stop.removeHandler(registration) } }
        monitor.start()
        // Every request's task, and the connections' and the group's, run on the server's own threads.
        try await withTaskExecutorPreference(threads) { try await group.run() }
        stopEverything()
    }

    /// The starting view of `view`'s options and `strategy`, as a page's query keys and values:
    /// every option given, in the words the command line took.
    package static func startQuery(of view: ViewOptions, strategy: String) -> [(key: String, value: String)] {
        var query: [(key: String, value: String)] = []
        let center = view.center ?? ViewOptions.defaultCenter
        query.append(
            ("center", "\(text(center.realText, center.real)),\(text(center.imaginaryText, center.imaginary))"))
        query.append(("zoom", view.zoom?.text ?? "1"))
        query.append(("iterations", "\(view.iterationLimit)"))
        query.append(("color", view.colorScheme.rawValue))
        query.append(("palette", paletteText(view.palette ?? .classic)))
        query.append(("strategy", strategy))
        if let cycle = view.paletteCycle { query.append(("palette-cycle", "\(cycle)")) }
        if let offset = view.paletteOffset { query.append(("palette-offset", "\(offset)")) }
        if let julia = view.julia {
            query.append(("julia", "\(text(julia.realText, julia.real)),\(text(julia.imaginaryText, julia.imaginary))"))
        }
        if let samples = view.supersample { query.append(("supersample", "\(samples)")) }
        if let precision = view.precision { query.append(("precision", precision.rawValue)) }
        if let bla = view.bla { query.append(("bla", bla.rawValue)) }
        if let period = view.period { query.append(("period", period.rawValue)) }
        return query
    }

    private static func text(_ typed: String, _ value: Double) -> String { typed.isEmpty ? "\(value)" : typed }

    /// `palette` as `--palette` takes it: its name, or its colours (which `--palette` spreads evenly, as they were).
    private static func paletteText(_ palette: Palette) -> String {
        let words = RenderFacts.describe(palette)
        if let named = Palette.named.first(where: { RenderFacts.describe($0.palette) == words }) { return named.name }
        func hex(_ value: UInt8) -> String { String(String(Int(value) | 0x100, radix: 16).dropFirst()) }
        return palette.stops.map { "#\(hex($0.red))\(hex($0.green))\(hex($0.blue))" }.joined(separator: ",")
    }
}
