import Foundation
import Testing

extension ExplorerPageTests {
    @Test(
        "a strategy picked in the page (its select, or its URL) names the next tiles' URLs and their X-Mandel-Command")
    func strategySwitch() async throws {
        try await Explorer.with { explorer in
            try await explorer.open("strategy=gcd")
            try await explorer.waitUntilFilled()
            let before = try await explorer.tiles()
            #expect(!before.isEmpty && before.allSatisfy { $0.url.contains("&strategy=gcd") })
            let logged = try await explorer.log().count

            // The select, as a user's pick changes it.
            let _: Bool = try await explorer.browser.execute(
                """
                const select = document.getElementById("strategy");
                select.value = "operation";
                select.dispatchEvent(new Event("change", { bubbles: true }));
                return true;
                """)
            #expect(try await explorer.view().strategy == "operation")
            #expect(try await explorer.href().contains("strategy=operation"))
            try await explorer.waitUntilFilled()
            let tiles = try await explorer.tiles()
            #expect(!tiles.isEmpty)
            #expect(
                tiles.allSatisfy { $0.url.contains("&strategy=operation") && !$0.url.contains("strategy=gcd") },
                "\(tiles.first?.url ?? "no tile")")
            let sentSince = try await explorer.log(from: logged).filter { $0.type == "sent" }
            #expect(!sentSince.isEmpty)
            #expect(sentSince.allSatisfy { $0.url.contains("&strategy=operation") }, "a tile sent after the switch")
            try await expectCommands(of: tiles, naming: "operation", from: explorer)

            // The server rendered them with that strategy: each tile the page loaded after the switch
            // is one operation sent, and the two the test fetched are two more.
            let loadedSince = try await explorer.log(from: logged).filter { $0.type == "loaded" }.count
            let stats = try await explorer.stats()
            #expect(stats.strategies["operation"]?.tilesSent == loadedSince + 2)

            // The URL: a page opened with strategy=pthread shows it in the select and asks for it.
            try await explorer.open("strategy=pthread")
            #expect(try await explorer.browser.execute("return document.getElementById('strategy').value") == "pthread")
            try await explorer.waitUntilFilled()
            let opened = try await explorer.tiles()
            #expect(!opened.isEmpty && opened.allSatisfy { $0.url.contains("&strategy=pthread") })
            try await expectCommands(of: opened, naming: "pthread", from: explorer)
        }
    }

    /// Fetches two of `tiles` (the first and the last) and checks that each answer's
    /// `X-Mandel-Command` renders with `strategy` and names the tile's window.
    private func expectCommands(of tiles: [PageTile], naming strategy: String, from explorer: Explorer) async throws {
        for tile in [tiles.first!, tiles.last!] {
            let answer = try await explorer.get(tile.url)
            #expect(answer.status == 200, "\(tile.url)")
            #expect(answer.headers["content-type"] == "image/png")
            let command = answer.headers["x-mandel-command"] ?? ""
            #expect(command.hasPrefix("render --strategy \(strategy) "), "X-Mandel-Command: \(command)")
            let words = command.split(separator: " ").map(String.init)
            #expect(
                words.firstIndex(of: "--window").map { words[$0 + 1] } == tile.window, "X-Mandel-Command: \(command)")
        }
    }
}
