import Foundation
import Testing

/// A half's live panel, as the page's `panel()` hook gives it (null where absent).
struct PanelFigures: Decodable, Sendable {
    let strategy: String?
    let updates: Int
    let ageMs: Double?
    let tilesPerSecond: Double?
    let cancelP50Ms: Double?
    let cancelP95Ms: Double?
    let cpuSeconds: Double?
    let cpuWastedSeconds: Double?
    let cpuWastedPercent: Double?
    let cpuAfterCancelSeconds: Double?
    let mainQueueP99Ms: Double?
    let mainQueueMaxMs: Double?
    let mainQueueWorstMs: Double?
    let threads: Double?
    let serverThreads: Double?
    let residentBytes: Double?
    let serialShare: Double?
    let amdahlBound: Double?
    let workers: Double?
    let fillLatestMs: Double?
}

extension ExplorerPageTests {
    /// The period-3 bulb, where every pixel runs to the limit: a tile of `serial` holds the
    /// server's main queue for as long as it renders (hundreds of ms here), a tile of `gcd` does not.
    static let bulbView = "center=-0.1225,0.7449&zoom=40&iterations=20000"

    @Test(
        "side by side, each half's panel shows its strategy's figures, updating, within bounds; serial holds the main queue"
    )
    func sideBySidePanels() async throws {
        try await Explorer.with(serving: ["--workers", "2"]) { explorer in
            try await explorer.open(Self.bulbView + "&strategy=serial&compare=gcd")
            try await explorer.waitUntilFilled()
            try await waitUntil("the second half to fill", seconds: Explorer.Deadlines.fill) {
                try await explorer.browser.execute("return mandelPage.compare.filled()")
            }
            #expect(try await explorer.browser.execute("return mandelPage.compare.strategy()") as String == "gcd")
            let right: [PageTile] = try await explorer.browser.execute("return mandelPage.compare.tiles()")
            #expect(!right.isEmpty && right.allSatisfy { $0.url.contains("&strategy=gcd") })
            #expect(try await explorer.tiles().allSatisfy { $0.url.contains("&strategy=serial") })

            // The panels update from the stream while the page is open: a few messages a second.
            let first: PanelFigures = try await explorer.browser.execute("return mandelPage.panel()")
            try await Task.sleep(for: .seconds(1.5))
            let serial: PanelFigures = try await explorer.browser.execute("return mandelPage.panel()")
            let gcd: PanelFigures = try await explorer.browser.execute("return mandelPage.compare.panel()")
            #expect(serial.strategy == "serial" && gcd.strategy == "gcd")
            #expect(serial.updates >= first.updates + 2 && serial.updates <= first.updates + 12, "\(serial.updates)")
            #expect((serial.ageMs ?? .infinity) < 1000, "the last message is \(serial.ageMs ?? -1) ms old")

            // Both rendered tiles: processor time spent, a resident size and threads a server has.
            for figures in [serial, gcd] {
                let name = figures.strategy ?? "?"
                #expect((figures.cpuSeconds ?? 0) > 0.05 && (figures.cpuSeconds ?? 0) < 600, "\(name) cpu")
                #expect(
                    (figures.residentBytes ?? 0) > 5e6 && (figures.residentBytes ?? 0) < 8e9,
                    "\(name) resident \(figures.residentBytes ?? -1)")
                #expect((figures.serverThreads ?? 0) >= 3 && (figures.serverThreads ?? 0) < 200, "\(name) threads")
                #expect(
                    (figures.mainQueueWorstMs ?? -1) >= 0 && (figures.mainQueueWorstMs ?? .infinity) < 60_000,
                    "\(name) main queue worst \(figures.mainQueueWorstMs ?? -1) ms")
                #expect(figures.serialShare == nil && figures.amdahlBound == nil, "\(name): not a deep view")
            }
            // The book's first lesson: serial renders on the main queue, which then runs as late as
            // a 64x64 tile of this view takes; gcd's workers leave it to its heartbeat.
            let serialWorst = serial.mainQueueWorstMs ?? 0
            let gcdWorst = gcd.mainQueueWorstMs ?? .infinity
            #expect(serialWorst > 20, "serial's main queue ran at most \(serialWorst) ms late")
            // gcd's lateness is the scheduler's alone, and grows with the load; serial's is a tile's render
            // and the same. On a free machine serial's is more than twice gcd's; at a load of 8 on 2
            // processors gcd's main queue was once 422 ms late, serial's 561 ms: the bound is divided by
            // the load per processor, where that is more than 1 (the load average lags a minute behind).
            let fields = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ") ?? []
            let stretch = max(
                1, (fields.first.flatMap { Double($0) } ?? 0) / Double(ProcessInfo.processInfo.activeProcessorCount))
            #expect(
                serialWorst > 2 * gcdWorst / stretch,
                "serial \(serialWorst) ms against gcd \(gcdWorst) ms, at \(stretch) times a free machine's load")
            // Each half's lesson is its strategy's, from /config.
            let lessons: [String] = try await explorer.browser.execute(
                "return [...document.querySelectorAll('.lesson')].map(e => e.textContent)")
            #expect(lessons.contains { $0.contains("main queue") }, "no lesson names the main queue: \(lessons)")
        }
    }

    @Test("the panel's cancel and waste figures follow a pan that cancels, and a deep view shows its serial share")
    func panelAfterCancelsAndAtDepth() async throws {
        try await Explorer.with(serving: ["--workers", "2"]) { explorer in
            try await explorer.open(Self.bulbView + "&strategy=thread")
            // Pan before the first tiles are done: the ones rendering and waiting are cancelled.
            let _: Bool = try await explorer.browser.executeAsync(
                """
                const done = arguments[arguments.length - 1];
                mandelPage.ready.then(() => setTimeout(() => {
                  mandelPage.pan(1536, 0); setTimeout(() => { mandelPage.pan(-1536, 0); done(true); }, 300);
                }, 400));
                """)
            try await explorer.waitUntilFilled()
            try await waitUntil("the panel to show a cancel latency", seconds: 10) {
                let figures: PanelFigures = try await explorer.browser.execute("return mandelPage.panel()")
                return figures.cancelP50Ms != nil
            }
            let figures: PanelFigures = try await explorer.browser.execute("return mandelPage.panel()")
            let stats = try await explorer.stats().strategies["thread"]!
            #expect(stats.tilesCancelled >= 1)
            // The panel shows the server's figures: the same numbers, in milliseconds.
            let p50 = try #require(figures.cancelP50Ms)
            #expect(abs(p50 - 1000 * (stats.cancelLatencySeconds.p50 ?? -1)) < 0.01, "\(p50) ms")
            #expect(p50 > 0 && p50 < 2000, "cancel p50 \(p50) ms")
            let percent = try #require(figures.cpuWastedPercent)
            #expect(percent > 0 && percent < 100, "\(percent)% wasted")
            // The part after the cancels, the mechanism's, is a part of the waste.
            let afterCancel = try #require(figures.cpuAfterCancelSeconds)
            #expect(afterCancel >= 0 && afterCancel <= (figures.cpuWastedSeconds ?? -1), "\(afterCancel) s after")
            #expect((figures.fillLatestMs ?? -1) > 0 && (figures.fillLatestMs ?? .infinity) < 120_000)

            // A deep view: the last tile that computed its reference orbit gives its serial share.
            let location = try DeepLocation.named("1e50")
            try await explorer.open(
                "center=\(location.re),\(location.im)&zoom=\(location.zoom)&iterations=3000&strategy=thread")
            try await explorer.waitUntilFilled()
            try await waitUntil("the panel to show the orbit's share", seconds: 10) {
                let deep: PanelFigures = try await explorer.browser.execute("return mandelPage.panel()")
                return deep.serialShare != nil
            }
            let deep: PanelFigures = try await explorer.browser.execute("return mandelPage.panel()")
            let share = try #require(deep.serialShare)
            let bound = try #require(deep.amdahlBound)
            #expect(share > 0 && share <= 1, "serial share \(share)")
            #expect(bound >= 1 && bound <= Double(deep.workers ?? 0) + 1e-9, "Amdahl's bound \(bound)")
            #expect(abs(bound - 1 / (share + (1 - share) / (deep.workers ?? 1))) < 1e-9)
        }
    }
}
