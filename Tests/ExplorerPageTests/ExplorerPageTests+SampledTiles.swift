import Foundation
import ProcessTestSupport
import Testing

extension ExplorerPageTests {
    static let strategies = ["serial", "thread", "operation", "gcd", "apply", "tasks", "pthread", "process"]

    /// The issue's own check: tiles sampled while someone browses, with every strategy, each the
    /// file that `mandel` writes for its `X-Mandel-Command`. Per strategy the page is opened at a
    /// view, zoomed in at a point off the centre, panned, and zoomed out; seven of the tiles it
    /// loaded on the way are fetched again and rendered by the real binary.
    @Test("56 tiles sampled while browsing, 7 a strategy, each the same bytes as mandel <X-Mandel-Command> -o FILE")
    func sampledTilesAreTheirCommands() async throws {
        let folder = NSTemporaryDirectory() + "mandel-sampled-tiles-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Explorer.with { explorer in
            var compared = 0
            for (index, strategy) in Self.strategies.enumerated() {
                try await explorer.open("center=-0.745,0.11&zoom=8&iterations=400&strategy=\(strategy)")
                try await explorer.waitUntilFilled()
                var loaded: [String] = []
                func collect() async throws {
                    try await explorer.waitUntilFilled()
                    loaded += try await explorer.tiles().filter { $0.state == "loaded" }.map(\.url)
                }
                try await collect()
                let _: Bool = try await explorer.browser.execute("mandelPage.zoomAt(900, 300, 2); return true")
                try await collect()
                let _: Bool = try await explorer.browser.execute("mandelPage.pan(-300, 170); return true")
                try await collect()
                let _: Bool = try await explorer.browser.execute("mandelPage.zoomAt(200, 600, 0.5); return true")
                try await collect()
                let distinct = Array(Set(loaded)).sorted()
                #expect(distinct.count >= 7, "\(strategy): \(distinct.count) tiles loaded")
                // Seven spread over what was loaded: the views before and after each move.
                let step = max(1, distinct.count / 7)
                for url in stride(from: index % step, to: distinct.count, by: step).prefix(7).map({ distinct[$0] }) {
                    let answer = try await explorer.get(url)
                    #expect(answer.status == 200, "\(url)")
                    let command = try #require(answer.headers["x-mandel-command"], "\(url)")
                    #expect(command.hasPrefix("render --strategy \(strategy) "), "\(command)")
                    let result = try MandelProcess.run(
                        command.split(separator: " ").map(String.init) + ["-o", "tile.png"], in: folder)
                    #expect(result.status == 0, "\(result.standardError)")
                    let file = try Data(contentsOf: URL(fileURLWithPath: folder + "/tile.png"))
                    #expect(file == answer.body, "\(url): not the bytes of mandel \(command) -o FILE")
                    compared += 1
                }
            }
            #expect(compared == 56)
        }
    }
}
