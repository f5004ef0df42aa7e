import ArgumentParser
import Comparison
import Foundation
import HTTPTypes
package import Hummingbird
package import ImageFiles
package import MandelOptions
package import MandelbrotCore
import Platform
import ProcessDriver
import StrategyCatalog
import Synchronization

/// `mandel serve`: the explorer's HTTP server. The page, tiles of the view it shows (each a
/// window of one picture, rendered by the strategy the page names, the same bytes as
/// `mandel render` with the arguments in its `X-Mandel-Command`), the command of a view, and
/// what the tiles cost (`/stats`).
///
/// Tiles queue for a render slot (``RenderQueue``); a tile whose client goes away is taken out
/// of the line, or stopped through the strategy's cancel while it renders, and never sent.
package final class ExplorerServer: Sendable {
    /// How the server runs: where it listens, the page's starting view, and how tiles render.
    package struct Settings: Sendable {
        package var host = "127.0.0.1"
        package var port = 8080
        /// The page's starting view, as query keys and values (``ViewRequest/viewKeys`` and `strategy`).
        package var start: [(key: String, value: String)] = []
        /// Workers, tile size, split and kernel of every render: they change no pixel.
        package var work: WorkOptions
        /// Who stops a tile whose client went away: the shared flag, or only the mechanism's own cancel.
        package var cancellationMode: CancellationMode = .flag
        /// Tiles rendered at once.
        package var slots = 1
        /// Tiles that may wait for a slot; more are refused with 503.
        package var queueCapacity = 64
        package var limits = RequestLimits()
        /// The tiles' PNG compression: `fast` by default (deflate's run-length strategy: a 256×256 tile in a
        /// quarter of `balanced`'s time, 10–20% larger), named in each tile's command.
        package var compression = PNGCompression.fast

        /// Settings with `work`, or the command line's default work options.
        package init(work: WorkOptions? = nil) {
            // Parsing no arguments cannot fail: every work option has a default.
            self.work = work ?? (try! WorkOptions.parse([]))
        }
    }

    let settings: Settings
    let page: PageFiles
    let stats: ServerStats
    let queue: RenderQueue
    let references = DeepReferenceStore(capacity: 2)
    /// Views read lately: a tile's view is parsed once.
    let views = ViewCache()
    /// The threads every request runs on (the tiles' renders leave them).
    package let threads = ServerThreads(count: 2)
    /// The server's own strategies by name: the catalog's, but a `process` that keeps its helpers.
    let strategies: [String: any RenderStrategy]
    private let nextTicket = Atomic<Int>(0)
    /// Set once the server is going away: the live streams end.
    private let stopping = Atomic(false)
    /// The cancel flags of the tiles under way, for a shutdown to stop them all.
    private let underWay = Locked<[Int: CancellationFlag]>([:])
    /// What the server does while someone explores, for the page's live panel.
    let monitor = LiveMonitor()
    /// The `process` strategy's helpers, kept for the server's life.
    private let helperPool = HelperPool()

    /// A server with `settings`; throws if the page's files are missing from the build.
    package init(settings: Settings) throws {
        self.settings = settings
        page = try PageFiles.load()
        stats = ServerStats(strategies: StrategyCatalog.names)
        queue = RenderQueue(slots: settings.slots, capacity: settings.queueCapacity)
        var strategies: [String: any RenderStrategy] = [:]
        for strategy in StrategyCatalog.all { strategies[strategy.name] = strategy }
        strategies["process"] = ProcessStrategy(keeping: helperPool)
        self.strategies = strategies
    }

    /// Stops every tile under way and the `process` strategy's helpers: the server is going away.
    package func stopEverything() {
        let flags = underWay.withLock { Array($0.values) }
        flags.forEach { $0.cancel() }
        helperPool.stopAll()
        monitor.stop()
        stopping.store(true, ordering: .relaxed)
    }

    // MARK: - Routes

    /// The routes: the page, `/config`, `/view`, `/tile`, `/stats` and `/health`.
    package func router() -> Router<BasicRequestContext> {
        let router = Router()
        for path in page.byPath.keys {
            router.get(RouterPath(path)) { [page] _, _ in
                let file = page.byPath[path]!
                return Response(
                    status: .ok,
                    headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
                    body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
            }
        }
        router.get("config") { [self] _, _ in json(configuration) }
        router.get("stats") { [self] _, _ in
            let occupancy = queue.occupancy
            let reuse = references.reuse
            return json(
                stats.json(
                    queue: occupancy, capacity: settings.queueCapacity, slots: settings.slots,
                    references: (references.count, reuse.found, reuse.computed)))
        }
        router.get("health") { _, _ in Self.text(.ok, "ok") }
        router.get("events") { [self] _, _ in liveEvents() }
        router.get("view") { [self] request, _ in
            do {
                let view = try ViewRequest(
                    query: Self.query(of: request), needsWindow: false, limits: settings.limits, work: settings.work)
                return json(Data(JSONOutput.encode(ViewJSON(view))))
            } catch let refusal as ViewRequest.Refusal {
                return Self.text(.init(code: refusal.status), refusal.description)
            }
        }
        router.get("tile") { [self] request, _ in
            let tile: ViewRequest
            do {
                tile = try ViewRequest(
                    query: Self.query(of: request), needsWindow: true, limits: settings.limits, work: settings.work,
                    compression: settings.compression, views: views)
            } catch let refusal as ViewRequest.Refusal {
                return Self.text(.init(code: refusal.status), refusal.description)
            }
            return try await serve(tile, request: request)
        }
        return router
    }

    /// The query's keys and values, values percent-decoded.
    static func query(of request: Request) -> [(key: String, value: String)] {
        request.uri.queryParameters.map { (String($0.key), String($0.value)) }
    }

    /// A one-line text response.
    static func text(_ status: HTTPResponse.Status, _ line: String, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: line + "\n")))
    }

    func json(_ data: Data) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    // MARK: - Tiles

    /// Serves one tile: waits for a slot, renders it, and sends it unless its client went away.
    private func serve(_ tile: ViewRequest, request: Request) async throws -> Response {
        let strategy = strategies[tile.strategy]!
        stats.requested(tile.strategy)
        let ticket = nextTicket.add(1, ordering: .relaxed).oldValue
        let flag = CancellationFlag()
        underWay.withLock { $0[ticket] = flag }
        defer { underWay.withLock { _ = $0.removeValue(forKey: ticket) } }
        // The process's processor time when the client went away: what the render used after it is the cancel's cost.
        let cpuAtCancel = Locked<Double?>(nil)
        let registration = flag.onCancel { [queue] in
            cpuAtCancel.withLock { $0 = CPUTime.now().total }
            queue.cancel(ticket: ticket)
        }
        defer {
            // No cancel comes after this: the ticket can be forgotten for good.
            if let registration { flag.removeHandler(registration) }
            queue.forget(ticket: ticket)
        }
        // The client's going away (the only cancel a browser's HTTP/1.1 connection can send) sets the flag.
        return try await request.body.consumeWithInboundCloseHandler { [stats] body in
            // The body first, to its end (a GET's is empty). Hummingbird 2.28's reader of the request's parts
            // traps ("Deinited NIOAsyncSequenceProducer.Source without calling source.finish()") when this
            // operation ends before the reader has seen the request's end: cancelled before its first read, it
            // leaves its source unfinished. Once the body has ended here, the reader has seen the end.
            do {
                for try await _ in body {}
            } catch {
                stats.ended(tile.strategy, .cancelledWaiting)
                return Self.clientGone
            }
            return await render(tile, strategy: strategy, ticket: ticket, flag: flag, cpuAtCancel: cpuAtCancel)
        } onInboundClosed: {
            flag.cancel()
        }
    }

    private func render(
        _ tile: ViewRequest, strategy: any RenderStrategy, ticket: Int, flag: CancellationFlag,
        cpuAtCancel: Locked<Double?>
    ) async -> Response {
        switch await queue.enter(ticket: ticket) {
        case .full:
            stats.ended(tile.strategy, .refused)
            return Self.text(
                .serviceUnavailable,
                "the render queue is full (\(settings.queueCapacity) tiles waiting); try again in a second",
                headers: [.retryAfter: "1"])
        case .cancelled:
            stats.ended(tile.strategy, .cancelledWaiting)
            return Self.clientGone
        case .granted:
            break
        }
        if flag.isCancelled {
            queue.leave()
            stats.ended(tile.strategy, .cancelledWaiting)
            return Self.clientGone
        }
        let settings = RunSettings(cancellationMode: self.settings.cancellationMode)
        let startCPU = CPUTime.now()
        let start = MonotonicClock.nanoseconds()
        let mark = monitor.began(tile.strategy)
        defer { monitor.ended(mark) }
        do {
            let render = TileRender(
                job: tile.job, outputs: tile.outputs, strategy: strategy, settings: settings, references: references)
            // The render leaves the server's threads: its reference orbit blocks its thread for as long as it takes.
            let pixels = try await withTaskExecutorPreference(globalConcurrentExecutor) {
                try await render.pixels(cancellation: flag)
            }
            monitor.ended(mark)
            // The slot is the next tile's while this one's PNG is written: a render keeps both processors
            // busy, the encoding one.
            queue.leave()
            monitor.deepTile(tile.strategy, report: pixels.report)
            return await encoded(pixels, by: render, tile: tile, flag: flag, start: start)
        } catch let cancelled as RenderCancelled {
            let stopped = MonotonicClock.nanoseconds()
            let afterCancel = cpuAtCancel.withLock { $0 }.map { max(0, CPUTime.now().total - $0) } ?? 0
            queue.leave()
            let asked = flag.cancelledAt ?? stopped
            stats.ended(
                tile.strategy,
                .cancelledRendering(
                    cpuSeconds: cancelled.report.cpu.total, afterCancelSeconds: afterCancel,
                    latencySeconds: Double(stopped &- min(asked, stopped)) / 1e9))
            return Self.clientGone
        } catch let failure as RenderFailure {
            queue.leave()
            stats.ended(tile.strategy, .failed(cpuSeconds: CPUTime.now().since(startCPU).total))
            return Self.text(.serviceUnavailable, failure.description)
        } catch {
            queue.leave()
            stats.ended(tile.strategy, .failed(cpuSeconds: CPUTime.now().since(startCPU).total))
            return Self.text(.internalServerError, "internal error: \(error) (a bug; please report it)")
        }
    }

    /// Encodes a tile's rendered pixels (its render slot already given back) and answers with the PNG.
    private func encoded(
        _ pixels: TileRender.Pixels, by render: TileRender, tile: ViewRequest, flag: CancellationFlag, start: UInt64
    ) async -> Response {
        var cpu = pixels.report.cpu.total
        if flag.isCancelled {
            stats.ended(tile.strategy, .wasted(cpuSeconds: cpu))
            return Self.clientGone
        }
        do {
            let picture = try await withTaskExecutorPreference(globalConcurrentExecutor) {
                try render.encode(pixels)
            }
            cpu += picture.cpuSeconds
            if flag.isCancelled {
                stats.ended(tile.strategy, .wasted(cpuSeconds: cpu))
                return Self.clientGone
            }
            return png(picture.bytes, tile: tile, cpu: cpu, seconds: MonotonicClock.seconds(since: start))
        } catch {
            stats.ended(tile.strategy, .failed(cpuSeconds: cpu))
            return Self.text(
                .internalServerError, "internal error: cannot encode the tile: \(error) (a bug; please report it)")
        }
    }

    /// A tile's PNG, counted as sent once its last byte went out, or as wasted if the client went first.
    private func png(_ bytes: [UInt8], tile: ViewRequest, cpu: Double, seconds: Double) -> Response {
        let name = tile.strategy
        let (stats, monitor) = (self.stats, self.monitor)
        return Response(
            status: .ok,
            headers: [
                .contentType: "image/png", .cacheControl: "no-store", Self.commandField: tile.command,
            ],
            body: ResponseBody(contentLength: bytes.count) { writer in
                do {
                    try await writer.write(ByteBuffer(bytes: bytes))
                    try await writer.finish(nil)
                    stats.ended(name, .sent(cpuSeconds: cpu, renderSeconds: seconds))
                    monitor.sent(name)
                } catch {
                    stats.ended(name, .wasted(cpuSeconds: cpu))
                    throw error
                }
            })
    }

    /// The live panel's stream: server-sent events, one `stats` message every 250 ms (see
    /// ``LiveJSON``), until the client goes or the server stops.
    private func liveEvents() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { [self] writer in
                while !stopping.load(ordering: .relaxed) {
                    let message =
                        "event: stats\ndata: " + String(decoding: monitor.snapshot(stats: stats), as: UTF8.self)
                        + "\n\n"
                    try await writer.write(ByteBuffer(string: message))
                    try await Task.sleep(for: .milliseconds(250))
                }
                try await writer.finish(nil)
            })
    }

    /// The header that names the render which writes the same bytes.
    static let commandField = HTTPField.Name("X-Mandel-Command")!

    /// What a tile whose client went away gets: nobody reads it (nginx's 499, "client closed request").
    static var clientGone: Response { Response(status: .init(code: 499, reasonPhrase: "Client Closed Request")) }

    // MARK: - Configuration

    private var configuration: Data {
        Data(
            JSONOutput.encode(
                ConfigurationJSON(
                    start: Dictionary(settings.start.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }),
                    tileSide: 256,
                    strategies: StrategyCatalog.names.map { name in
                        let strategy = strategies[name]!
                        return .init(
                            name: name, summary: strategy.summary,
                            details: Dictionary(
                                StrategyCatalog.details(of: strategy).map { ($0.what, $0.how) },
                                uniquingKeysWith: { $1 }))
                    },
                    palettes: Palette.named.map(\.name),
                    colors: ColorScheme.allCases.filter { $0 != .histogram }.map(\.rawValue),
                    maxIterations: settings.limits.maximumIterations)))
    }

    private struct ConfigurationJSON: Encodable {
        struct Strategy: Encodable {
            let name: String
            let summary: String
            /// How it cancels, waits, orders work, makes work wait and recovers: `mandel strategies --details`.
            let details: [String: String]
        }
        let start: [String: String]
        let tileSide: Int
        let strategies: [Strategy]
        let palettes: [String]
        let colors: [String]
        let maxIterations: Int
    }

    private struct ViewJSON: Encodable {
        let command: String
        let precision: String

        init(_ view: ViewRequest) {
            // For a shell: a word with a character the shell reads (a palette's '#') is quoted.
            command = (["mandel", "render"] + view.arguments.map(Self.shellWord) + ["-o", "mandel.png"])
                .joined(separator: " ")
            precision = view.job.deep == nil ? "double" : "perturbation"
        }

        /// `word`, single-quoted unless every character is one a shell takes as it is.
        static func shellWord(_ word: String) -> String {
            let plain = word.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || "-_.,:+/=@%".utf8.contains(byte)
            }
            return plain ? word : "'" + word.replacing("'", with: "'\\''") + "'"
        }
    }
}
