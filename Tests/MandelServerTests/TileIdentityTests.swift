import Deadline
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ImageFiles
import MandelServer
import ProcessTestSupport
import Testing

extension ExplorerServerTests {
    /// The core promise: a tile is the file that `mandel` writes for the command in its
    /// `X-Mandel-Command` header, byte for byte, whichever strategy rendered it.
    @Suite("Tiles: the bytes of mandel render --window")
    struct TileIdentityTests {
        /// The strategies, as `mandel strategies` lists them (`/config` is checked against this list).
        static let strategies = ["serial", "thread", "operation", "gcd", "apply", "tasks", "pthread", "process"]

        /// A shallow picture that has escaping pixels and the set's interior in every window below.
        static let picture = "size=240x160&center=-0.75,0.1&zoom=1.5&iterations=300"

        /// Windows of several kinds of picture: inside it, straddling its edges, wholly outside it.
        static let tiles: [(what: String, query: String)] = [
            ("inside", picture + "&window=40,24,64,48"),
            ("straddling the bottom-right corner", picture + "&window=200,130,64,48"),
            ("wholly outside, above and left", picture + "&window=-100,-80,40,30"),
            ("deep at 1e50, inside", deepPicture + "&window=20,10,40,30"),
            ("deep at 1e50, straddling the top edge", deepPicture + "&window=60,-12,40,30"),
            ("supersampled 3x3", picture + "&supersample=3&window=100,60,24,20"),
            ("a Julia set", "size=200x150&julia=-0.8,0.156&iterations=200&palette=fire&window=150,-10,64,40"),
            ("black and white, from a column that is not a whole byte", picture + "&color=bw&window=43,40,70,60"),
            ("gray, straddling the right edge", picture + "&color=gray&window=200,70,60,40"),
        ]

        /// The "1e50" location, whose pixels escape after 170,645 to 189,917 iterations at this size: a
        /// limit of 200,000 leaves none in the set (the whole picture renders in 0.2 s).
        static let deepPicture = "size=96x64&" + DeepLocation.query1e50 + "&iterations=200000"

        @Test(
            "a tile is the file that mandel writes for its X-Mandel-Command, for every kind of window",
            arguments: strategies)
        func tileIsTheCommandsFile(strategy: String) async throws {
            let server = try ExplorerServer(settings: ExplorerServer.Settings())
            defer { server.stopEverything() }
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try await Application(router: server.router()).test(.router) { client in
                for (index, tile) in Self.tiles.enumerated() {
                    let response = try await client.execute(
                        uri: "/tile?strategy=\(strategy)&" + tile.query, method: .get)
                    try #require(response.status == .ok, "\(tile.what): \(String(buffer: response.body))")
                    #expect(response.headers[.contentType] == "image/png")
                    let command = try #require(response.headers[HTTPField.Name("X-Mandel-Command")!], "\(tile.what)")
                    let arguments = command.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
                    #expect(arguments.first == "render" && arguments.contains("--strategy") && !arguments.contains(""))
                    let windowAt = try #require(arguments.firstIndex(of: "--window"), "\(tile.what): \(command)")
                    let windowText = arguments[windowAt + 1]
                    #expect(tile.query.hasSuffix("window=" + windowText), "\(tile.what): \(command)")
                    let served = Data(response.body.readableBytesView)
                    let name = "\(index).png"
                    let result = try await withDeadline(seconds: 120, waitingFor: "mandel \(command)") {
                        try MandelProcess.run(arguments + ["-o", name], in: folder)
                    }
                    try #require(result.status == 0, "mandel \(command): \(result.standardError)")
                    let written = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
                    #expect(served == written, "\(strategy), \(tile.what): the tile differs from mandel \(command)")
                    // The window's pixels, and a text chunk that says which: not an empty or a whole picture.
                    let image = try PNGImage(contentsOf: folder + "/" + name)
                    let window = windowText.split(separator: ",").map { Int($0)! }
                    #expect([image.width, image.height] == Array(window[2...]), "\(tile.what)")
                    #expect(image.texts["mandel.window"] == windowText, "\(tile.what)")
                    #expect(Set(image.pixels).count > 1, "\(tile.what): a tile of one colour shows nothing")
                }
            }
        }

        @Test("tiles of one deep view share one reference orbit; a window past the picture's reach computes another")
        func deepTilesShareTheReference() async throws {
            let server = try ExplorerServer(settings: ExplorerServer.Settings())
            defer { server.stopEverything() }
            try await Application(router: server.router()).test(.router) { client in
                func references() async throws -> (kept: Int, found: Int, computed: Int) {
                    let response = try await client.execute(uri: "/stats", method: .get)
                    let body =
                        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                    let stats = StatsReading(try #require(body))
                    return (
                        stats.count("kept", in: "references"), stats.count("found", in: "references"),
                        stats.count("computed", in: "references")
                    )
                }
                #expect(try await references() == (0, 0, 0))
                for (window, expected) in [
                    ("0,0,32,32", (1, 0, 1)), ("64,32,32,32", (1, 1, 1)), ("30,20,20,20", (1, 2, 1)),
                    // Beyond the picture's farthest corner: the table must reach further, another orbit.
                    ("900,900,16,16", (2, 2, 2)), ("10,40,16,16", (2, 3, 2)),
                ] {
                    let response = try await client.execute(
                        uri: "/tile?strategy=gcd&\(Self.deepPicture)&window=\(window)", method: .get)
                    #expect(response.status == .ok, "\(window): \(String(buffer: response.body))")
                    let seen = try await references()
                    #expect(seen == expected, "after the tile \(window): kept, found, computed")
                }
            }
        }
    }
}
