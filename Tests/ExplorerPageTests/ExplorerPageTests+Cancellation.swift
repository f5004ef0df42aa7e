import Foundation
import Testing

extension ExplorerPageTests {
    /// The costly view: inside the period-3 bulb (nucleus −0.12256 + 0.74486i, which the kernel
    /// does not skip as it skips the main cardioid and the period-2 bulb), where every pixel runs
    /// to the iteration limit, so that every tile costs the same: 3.7 processor-seconds, 1.9 s on
    /// two workers of the AMD EPYC it was measured on. The pans go right three times and back left
    /// three times, four times over, so that the tiles stay inside the bulb (every row of the
    /// 2816×1024 pixels their path covers is in the set at zoom 100, which reaches about 2,000
    /// pixels left of the centre and 2,900 right) and end where they began, whose 20 tiles the
    /// page then renders again.
    ///
    /// Three pans, because at 1,536 pixels from the start no tile the page sent before the pans is
    /// within the page's keeping margin (a tile's width beyond the viewport), so the one the server
    /// is rendering is aborted, whichever it is. With two (1,024 pixels), the tiles of one column
    /// stay kept all the way, and when the server's first tile was one of them (the six first
    /// requests arrive on six connections in any order), nothing was cancelled while rendering.
    ///
    /// The cost is what the 5% bound on wasted processor time needs: the waste is the one tile
    /// rendering when the pans begin, until its cancel takes effect, and the server counts the
    /// whole process's processor time over that render, the parsing of the pans' requests
    /// included (36 ms each in a debug build): 0.9 to 2.5 processor-seconds seen on a loaded
    /// 2-core machine, the cancel taking up to 0.75 s there, against the 20 tiles of the view the
    /// pans end on (75 processor-seconds).
    static let costlyView = "center=-0.1417611669,0.7448617666&zoom=100&iterations=400000&strategy=gcd"
    static let pans = Array(repeating: [[-512, 0], [-512, 0], [-512, 0], [512, 0], [512, 0], [512, 0]], count: 4)
        .flatMap { $0 }

    /// Fast panning: 24 pans of 512 pixels, 50 ms apart, on the costly view, then the page fills.
    ///
    /// The page's log and the server's counts must agree: a tile the page aborted before its
    /// answer began is one the server cancelled (waiting or rendering) or, if the render had just
    /// ended, wasted; a tile whose answer had begun is one the server sent, which the page
    /// loaded or discarded. The one slack is the browser's: a request aborted a pan or two after
    /// its `fetch` may never have been written to its connection (on a loaded machine it happens:
    /// 4 of 62 once), and the server cannot cancel what it never received (a request whose
    /// connection closes at once is still counted). Those are the page's sent tiles that the server
    /// never counted as requested, and they are not "in flight".
    @Test("fast panning cancels end to end: every tile the page aborted in flight is one the server cancelled")
    func fastPanningCancels() async throws {
        try await Explorer.with(serving: ["--cancel-by", "flag", "--workers", "2"]) { explorer in
            try await explorer.browser.navigate(to: explorer.server.absoluteString + "?" + Self.costlyView)
            // 24 pans of 512 pixels, 50 ms apart, timed by the page's own clock, from the moment the
            // page is ready (its first tiles sent): a first tile that renders on while the test
            // waits for another command is processor time the pans did not waste.
            let panTimes: [Double] = try await explorer.browser.executeAsync(
                """
                const [steps, gap, done] = arguments;
                const times = [];
                let next = 0;
                const step = () => {
                  times.push(performance.now());
                  mandelPage.pan(...steps[next++]);
                  if (next < steps.length) setTimeout(step, gap);
                  else done(times);
                };
                const start = () => (window.mandelPage ? mandelPage.ready.then(step) : setTimeout(start, 5));
                start();
                """, [Self.pans, 50])
            let panning = (panTimes.last! - panTimes.first!) / 1000

            // Then the page fills, and the server ends every tile it was asked for.
            try await explorer.waitUntilFilled(seconds: 300)
            try await waitUntil("the page's tiles to stop loading", seconds: 300) {
                try await explorer.tiles().allSatisfy { $0.state != "loading" && $0.state != "queued" }
            }
            var stats = try await explorer.stats()
            try await waitUntil("the server to end every tile", seconds: 60) {
                stats = try await explorer.stats()
                let gcd = stats.strategies["gcd"]!
                return gcd.tilesEnded == gcd.tilesRequested && stats.queue.rendering == 0 && stats.queue.waiting == 0
            }
            let gcd = stats.strategies["gcd"]!
            let log = try await explorer.log()
            func count(_ type: String) -> Int { log.count(where: { $0.type == type }) }
            let (sent, aborted, loaded) = (count("sent"), count("aborted"), count("loaded"))
            let discarded = count("discarded")
            let numbers = """
                page: \(sent) sent, \(aborted) aborted, \(discarded) discarded, \(loaded) loaded, \(count("failed")) failed, \
                \(count("retry")) retried; server (gcd): \(gcd.tilesRequested) requested, \(gcd.tilesSent) sent, \
                \(gcd.tilesCancelled) cancelled (\(gcd.tilesCancelledQueued) waiting, \(gcd.tilesCancelledRendering) \
                rendering), \(gcd.tilesWasted) wasted, \(gcd.tilesFailed) failed, \(gcd.tilesRefused) refused; \
                CPU \(seconds(gcd.cpuSeconds)), wasted \(seconds(gcd.cpuSecondsWasted)), after the cancels \
                \(seconds(gcd.cpuSecondsAfterCancel)) \
                (\(String(format: "%.1f", 100 * gcd.cpuSecondsWasted / max(gcd.cpuSeconds, 1e-9)))%); \
                cancel latency p50 \(seconds(gcd.cancelLatencySeconds.p50)), max \(seconds(gcd.cancelLatencySeconds.max)); \
                render p50 \(seconds(gcd.renderSeconds.p50)); pans over \(seconds(panning))
                """
            print("ExplorerPageTests: fast panning: \(numbers)")
            let races = """
                \(numbers). Where the counts differ: \(sent - gcd.tilesRequested) aborted before the server read \
                the request
                """

            // Requests the browser aborted before writing them: never in flight, never seen by the server.
            let neverArrived = sent - gcd.tilesRequested
            #expect(aborted >= 10, "the pans aborted too few tiles to tell anything: \(numbers)")
            #expect(gcd.tilesCancelledQueued >= 1 && gcd.tilesCancelledRendering >= 1, "\(numbers)")
            #expect(count("failed") == 0 && count("retry") == 0, "\(numbers)")
            #expect(
                neverArrived >= 0 && neverArrived <= aborted / 4,
                "the server counts a request the page never sent, or too many never arrived: \(races)")
            #expect(
                gcd.tilesCancelled + gcd.tilesWasted == aborted - neverArrived,
                "every tile aborted in flight is cancelled (or, its render just ended, wasted): \(races)")
            #expect(gcd.tilesSent == loaded + discarded, "every tile sent was loaded or discarded: \(races)")
            #expect(
                gcd.cpuSecondsWasted <= 0.05 * gcd.cpuSeconds,
                "the cancelled tiles cost more than 5% of the processor time: \(numbers)")
            #expect(
                gcd.cpuSecondsAfterCancel > 0 && gcd.cpuSecondsAfterCancel <= gcd.cpuSecondsWasted,
                "the processor time after the cancels is part of the time nobody saw: \(numbers)")
        }
    }

    private func seconds(_ value: Double?) -> String { value.map { String(format: "%.3f s", $0) } ?? "none" }
}
