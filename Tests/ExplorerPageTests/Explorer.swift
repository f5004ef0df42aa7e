import Deadline
import Foundation
import ProcessTestSupport

/// The explorer under test: the real `mandel serve` and a headless chromium showing its page
/// through chromedriver, all three started for one test and ended in every outcome.
struct Explorer: Sendable {
    /// The server's URL, `http://127.0.0.1:PORT/`.
    let server: URL
    let browser: WebDriverSession
    let http: HTTPClient

    /// The page's viewport, in CSS pixels and (at device pixel ratio 1) in screenshot pixels.
    static let viewport = (width: 1280, height: 800)

    /// The deadlines, for a 2-core machine that the whole suite (and other builds) share: a
    /// start or a cheap view takes a second or two there, so these are far from a slow run and
    /// near enough that a hang fails the test rather than the run.
    enum Deadlines {
        static let start = 60.0
        static let fill = 120.0
        static let stop = 10.0
    }

    /// Where the tests find the browser, and the line that says what to do when it is missing.
    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"

    /// `mandel` sits beside the test bundle in the build folder.
    static let mandel = MandelProcess.executable.path

    /// Starts `mandel serve --port 0` with `arguments`, chromedriver and chromium with a
    /// 1280×800 viewport, runs `body`, then ends the browser, the driver and the server, whether
    /// `body` returned or threw.
    ///
    /// - Throws: ``MissingBrowser`` (one line saying what to install) if chromium or chromedriver
    ///   is missing: these tests fail rather than skip.
    static func with<Value>(
        serving arguments: [String] = [], _ body: (Explorer) async throws -> Value
    ) async throws -> Value {
        for program in [chromium, chromedriver] where !FileManager.default.isExecutableFile(atPath: program) {
            throw MissingBrowser(program: program)
        }
        guard FileManager.default.isExecutableFile(atPath: mandel) else {
            throw ChildFailure(description: "\(mandel) is missing: build it first (swift build --build-tests)")
        }
        let folder = NSTemporaryDirectory() + "mandel-explorer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var children: [ChildProcess] = []
        var session: WebDriverSession?
        func cleanUp() async {
            await session?.end()
            for child in children.reversed() { await child.stop(grace: Deadlines.stop) }
            try? FileManager.default.removeItem(atPath: folder)
        }
        let explorer: Explorer
        do {
            let serve = try ChildProcess(
                mandel, ["serve", "--port", "0"] + arguments, name: "mandel serve", folder: folder)
            children.append(serve)
            let address = try await serve.output(waitingFor: "mandel serve's URL", seconds: Deadlines.start) {
                text in text.firstIndex(of: "\n").map { String(text[..<$0]) }
            }
            guard let server = URL(string: address), address.hasPrefix("http://") else {
                throw ChildFailure(description: "mandel serve's first line is not its URL: \(address)")
            }
            let driver = try ChildProcess(chromedriver, ["--port=0"], name: "chromedriver", folder: folder)
            children.append(driver)
            let port = try await driver.output(waitingFor: "chromedriver's port", seconds: Deadlines.start) {
                $0.firstMatch(of: /started successfully on port (\d+)/).flatMap { Int($0.output.1) }
            }
            let browser = try await WebDriverSession.start(
                driverPort: port, profile: folder + "/profile", windowSize: (viewport.width, viewport.height))
            session = browser
            try await browser.setViewport(width: viewport.width, height: viewport.height)
            explorer = Explorer(server: server, browser: browser, http: HTTPClient())
        } catch {
            // What the children said is the first thing to read when one of them did not start.
            let said = children.map { "\($0.name) said: \($0.errorTail)" }.joined(separator: "; ")
            await cleanUp()
            throw ExplorerFailure(description: "starting the explorer: \(error)" + (said.isEmpty ? "" : " (\(said))"))
        }
        do {
            let value = try await body(explorer)
            await cleanUp()
            return value
        } catch {
            await cleanUp()
            throw error
        }
    }

    // MARK: - The page

    /// Loads the page with `query` (without its `?`) and waits for `mandelPage.ready`.
    func open(_ query: String = "") async throws {
        try await browser.navigate(to: server.absoluteString + (query.isEmpty ? "" : "?" + query))
        try await waitForReady()
    }

    /// Waits for the page's hooks and its first picture (`mandelPage.ready`), at most the script timeout.
    func waitForReady() async throws {
        let ready: Bool = try await browser.executeAsync(
            """
            const done = arguments[arguments.length - 1];
            const wait = () => (window.mandelPage ? mandelPage.ready.then(() => done(true)) : setTimeout(wait, 20));
            wait();
            """)
        guard ready else { throw ExplorerFailure(description: "the page never became ready") }
    }

    /// `mandelPage.view()`.
    func view() async throws -> PageView { try await browser.execute("return mandelPage.view()") }

    /// `mandelPage.tiles()`.
    func tiles() async throws -> [PageTile] { try await browser.execute("return mandelPage.tiles()") }

    /// `mandelPage.log`, from entry `start` on.
    func log(from start: Int = 0) async throws -> [LogEntry] {
        try await browser.execute("return mandelPage.log.slice(arguments[0])", [start])
    }

    /// The page's `location.href`.
    func href() async throws -> String { try await browser.execute("return location.href") }

    /// Waits until `mandelPage.filled()`: every tile that meets the viewport is loaded.
    func waitUntilFilled(seconds: Double = Deadlines.fill) async throws {
        try await waitUntil("the page to fill its viewport", seconds: seconds) {
            try await browser.execute("return mandelPage.filled()")
        }
    }

    // MARK: - The server

    /// GETs `path` (such as a tile's `/tile?…`) from the server.
    func get(_ path: String) async throws -> HTTPClient.Answer {
        try await http.request("GET", URL(string: path, relativeTo: server)!.absoluteURL, timeout: 60)
    }

    /// The server's `GET /stats`.
    func stats() async throws -> ServerStatistics {
        try await http.json(server.appendingPathComponent("stats"), timeout: 30)
    }
}

/// Polls `condition` every 50 ms until it holds, at most `seconds`.
///
/// - Throws: ``DeadlinePassed`` naming `what` when it never held.
func waitUntil(_ what: String, seconds: Double, _ condition: () async throws -> Bool) async throws {
    let clock = ContinuousClock()
    let end = clock.now + .seconds(seconds)
    while try await !condition() {
        if clock.now >= end { throw DeadlinePassed(waitingFor: what, seconds: seconds) }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// The browser these tests need is not installed.
struct MissingBrowser: Error, CustomStringConvertible {
    let program: String
    var description: String {
        "\(program) is missing: the explorer's page tests need Debian's chromium and chromium-driver "
            + "(apt-get install chromium chromium-driver)"
    }
}

/// The explorer could not be started or driven: what went wrong, and what the children said.
struct ExplorerFailure: Error, CustomStringConvertible {
    let description: String
}

// MARK: - What the page and the server report

/// `mandelPage.view()`: the view on screen, in the URL's strings.
struct PageView: Decodable, Equatable, Sendable, CustomStringConvertible {
    let center: String
    let zoom: String
    let size: String
    let iterations: String
    let color: String
    let palette: String
    let strategy: String
    /// The viewport's top-left corner in the anchored picture's grid.
    let offset: [Int]

    /// Everything but the offset: what a URL carries.
    var place: [String] { [center, zoom, size, iterations, color, palette, strategy] }

    var description: String { "center \(center) zoom \(zoom) \(size) offset \(offset)" }
}

/// One of `mandelPage.tiles()`.
struct PageTile: Decodable, Sendable {
    /// `X,Y,W,H` in the anchored picture's grid.
    let window: String
    /// `/tile?…`.
    let url: String
    /// queued, loading, loaded, aborted or failed.
    let state: String

    /// The window's four numbers.
    var rectangle: (x: Int, y: Int, width: Int, height: Int) {
        let parts = window.split(separator: ",").map { Int($0)! }
        return (parts[0], parts[1], parts[2], parts[3])
    }
}

/// One of `mandelPage.log`'s entries.
struct LogEntry: Decodable, Sendable {
    /// sent, aborted, loaded, failed or retry.
    let type: String
    let url: String
    /// `performance.now()` when it happened, in milliseconds.
    let t: Double
}

/// The server's `GET /stats`, the parts these tests read.
struct ServerStatistics: Decodable, Sendable {
    struct Strategy: Decodable, Sendable {
        let tilesRequested: Int
        let tilesSent: Int
        let tilesRefused: Int
        let tilesCancelled: Int
        let tilesCancelledQueued: Int
        let tilesCancelledRendering: Int
        let tilesWasted: Int
        let tilesFailed: Int
        let cpuSeconds: Double
        let cpuSecondsWasted: Double
        let cpuSecondsAfterCancel: Double
        let cancelLatencySeconds: Percentiles
        let renderSeconds: Percentiles

        /// Tiles that ended one way or another: all of them, once the server is idle.
        var tilesEnded: Int { tilesSent + tilesRefused + tilesCancelled + tilesWasted + tilesFailed }
    }

    struct Percentiles: Decodable, Sendable {
        let p50: Double?
        let p95: Double?
        let max: Double?
    }

    struct Queue: Decodable, Sendable {
        let rendering: Int
        let waiting: Int
    }

    let strategies: [String: Strategy]
    let queue: Queue
}
