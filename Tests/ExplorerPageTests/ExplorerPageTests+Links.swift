import Foundation
import Testing

extension ExplorerPageTests {
    @Test("a link restores a deep view (past 1e50) digit for digit, and back and forward restore the views before it")
    func linkRestoresDeepView() async throws {
        let location = try DeepLocation.named("1e50")
        try await Explorer.with { explorer in
            // Modest iterations: the view is the point here, not the picture.
            try await explorer.open("center=\(location.re),\(location.im)&zoom=\(location.zoom)&iterations=1000")
            let opened = try await explorer.view()
            // The page writes a decimal without the zeros after its last digit, and nothing else changes.
            #expect(opened.center == ExactDecimal(location.re).plain + "," + ExactDecimal(location.im).plain)
            #expect(opened.zoom == location.zoom)
            #expect(opened.iterations == "1000")

            var steps = [Step(href: try await explorer.href(), view: opened)]
            let moves = [
                "mandelPage.zoomAt(300, 200, 2)", "mandelPage.pan(-200, 150)", "mandelPage.zoomAt(1000, 600, 2)",
                "mandelPage.pan(77, -33)", "mandelPage.zoomAt(640, 400, 0.5)", "mandelPage.pan(-512, -1)",
            ]
            for move in moves {
                let _: Bool = try await explorer.browser.execute(move + "; return true;")
                let step = Step(href: try await explorer.href(), view: try await explorer.view())
                #expect(step.href != steps.last!.href, "\(move) made no history entry of its own")
                steps.append(step)
            }
            let last = steps.last!.view
            // 1.333…e50 × 2 × 2 × ½: a zoom past 1e50 whose centre no Double could hold.
            let zoom = ExactDecimal(location.zoom).times(ExactDecimal("2"))
            #expect(last.zoom == zoom.auto)
            let realPart = last.center.split(separator: ",")[0]
            #expect(realPart.count(where: \.isNumber) > 50, "the centre \(last.center) has too few digits to be deep")

            // Back through every step to the opened view, then forward to the last.
            for index in stride(from: steps.count - 2, through: 0, by: -1) {
                let _: Bool = try await explorer.browser.execute("history.back(); return true;")
                try await settle(explorer, on: steps[index], "back to step \(index)")
            }
            for index in 1..<steps.count {
                let _: Bool = try await explorer.browser.execute("history.forward(); return true;")
                try await settle(explorer, on: steps[index], "forward to step \(index)")
            }

            // The link, opened in a fresh load: the same view, and tiles that ask for its digits.
            let link = steps.last!.href
            try await explorer.browser.navigate(to: link)
            try await explorer.waitForReady()
            let restored = try await explorer.view()
            #expect(restored.place == last.place, "opened \(link)")
            #expect(restored.offset == [0, 0])
            #expect(try await explorer.href() == link)
            let tiles = try await explorer.tiles()
            #expect(!tiles.isEmpty)
            let centreQuery = "center=" + restored.center
            #expect(tiles.allSatisfy { $0.url.contains(centreQuery + "&") }, "tiles: \(tiles.first?.url ?? "none")")

            // Back into the first page load's history. A navigation to the URL the page shows replaces
            // its entry (HTML's "navigate": same URL, so "replace"): back goes to the step before the last.
            let _: Bool = try await explorer.browser.execute("history.back(); return true;")
            try await settle(explorer, on: steps[steps.count - 2], "back across documents")
            let _: Bool = try await explorer.browser.execute("history.back(); return true;")
            try await settle(explorer, on: steps[steps.count - 3], "back again")
        }
    }

    /// A view the page showed, and its URL.
    struct Step {
        let href: String
        let view: PageView
    }

    /// Waits (the history's navigation is asynchronous) until the page shows `step`'s URL and view,
    /// then checks them.
    private func settle(_ explorer: Explorer, on step: Step, _ what: String) async throws {
        try? await waitUntil(what, seconds: 30) {
            let href: String? = try? await explorer.href()
            let view: PageView? = try? await explorer.view()
            return href == step.href && view?.place == step.view.place
        }
        let href = try await explorer.href()
        let view: PageView? = try? await explorer.view()
        #expect(href == step.href, "\(what)")
        #expect(
            view?.place == step.view.place,
            "\(what): \(view.map { "\($0)" } ?? "no view: the page at \(href) has no mandelPage") for \(step.view)")
    }
}
