import Foundation
import Hummingbird
import HummingbirdTesting
import MandelServer
import Testing

/// A refusal as the routes promise it: 400, text, one line.
func expectOneLineRefusal(
    _ response: TestResponse, naming words: [String], _ request: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let body = String(buffer: response.body)
    #expect(response.status == .badRequest, "\(request): \(response.status) \(body)", sourceLocation: sourceLocation)
    #expect(
        response.headers[.contentType] == "text/plain; charset=utf-8", "\(request)", sourceLocation: sourceLocation)
    #expect(
        body.hasSuffix("\n") && body.dropLast().allSatisfy { $0 != "\n" && $0 != "\r" } && body.count > 10,
        "\(request): not one line: \(body.debugDescription)", sourceLocation: sourceLocation)
    #expect(!body.contains("Usage") && !body.contains("Error:"), "\(request): \(body)", sourceLocation: sourceLocation)
    for word in words {
        #expect(
            body.contains(word), "\(request): \(body.debugDescription) lacks '\(word)'", sourceLocation: sourceLocation)
    }
}

extension ExplorerServerTests {
    @Suite("Requests the server refuses")
    struct RequestRefusalTests {
        /// A small valid tile, to which each case below adds or changes one key.
        static let tile = "size=64x48&iterations=50&window=0,0,8,8"

        /// Each key with a bad value, and what the one line must say: the key and what is allowed.
        static let badValues: [(key: String, value: String, words: [String])] = [
            ("size", "abc", ["size", "WxH"]), ("size", "0x5", ["size", "from 1 to"]),
            ("center", "1", ["center", "re,im"]), ("zoom", "0", ["zoom must be a finite number greater than 0"]),
            ("zoom", "1e1000001", ["zoom"]), ("precision", "float", ["precision", "'double' and 'perturbation'"]),
            ("bla", "maybe", ["bla", "'on' and 'off'"]),
            ("iterations", "0", ["iterations must be from 1 to 4294967294 (got 0)"]),
            ("iterations", "1.5", ["iterations"]), ("color", "pink", ["color", "'bw', 'gray', 'smooth'"]),
            ("palette", "plaid", ["palette", "choose from classic"]),
            ("palette-cycle", "0", ["palette-cycle must be a number of iterations from 0.001"]),
            ("palette-offset", "2", ["palette-offset must be a fraction from 0 to 1"]),
            ("palette-offset", "x", ["palette-offset", "decimal number"]), ("julia", "1", ["julia", "re,im"]),
            ("supersample", "9", ["supersample must be from 1 to 8"]),
            // The parser gives the allowed names on the lines after its first: the one line keeps them.
            ("strategy", "fastest", ["strategy", "serial", "process"]),
            ("window", "1,2", ["window", "X,Y,W,H"]), ("window", "0,0,0,5", ["window", "W and H from 1"]),
        ]

        @Test("every key with a bad value is 400 with one line that names the key and what is allowed")
        func badValueOfEachKey() async throws {
            let server = try ExplorerServer(settings: ExplorerServer.Settings())
            try await Application(router: server.router()).test(.router) { client in
                for (key, value, words) in Self.badValues {
                    let query = Self.tile.split(separator: "&").filter { !$0.hasPrefix(key + "=") }.joined(
                        separator: "&")
                    for route in ["/tile", "/view"] where route == "/tile" || key != "window" {
                        let base = route == "/tile" ? query : query.replacing(#/&?window=[^&]*/#, with: "")
                        let request = "\(route)?\(base)&\(key)=\(value)"
                        expectOneLineRefusal(
                            try await client.execute(uri: request, method: .get), naming: words, request)
                    }
                }
                // Every key of the list is covered.
                let covered = Set(Self.badValues.map(\.key))
                #expect(
                    covered == Set(ExplorerServerKeys.all),
                    "untested keys: \(Set(ExplorerServerKeys.all).subtracting(covered))")
                #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            }
        }

        @Test("keys, repeats, windows, limits and values the routes refuse, each in one line that says why")
        func refusedRequests() async throws {
            var settings = ExplorerServer.Settings()
            settings.limits.maximumIterations = 5000
            let server = try ExplorerServer(settings: settings)
            let cases: [(String, [String])] = [
                ("/tile?\(Self.tile)&speed=fast", ["unknown parameter 'speed'", "allowed: size, center", "window"]),
                ("/tile?\(Self.tile)&preset=benchmarks-game", ["unknown parameter 'preset'"]),
                ("/tile?\(Self.tile)&iterations=60", ["iterations is given twice"]),
                ("/tile?size=64x48&iterations=50", ["window is missing", "window=X,Y,W,H"]),
                ("/tile?size=64x48&window=0,0,1025,8", ["window", "at most 1024x1024", "1025x8"]),
                ("/tile?size=64x48&window=-5,-5,8,1025", ["window", "at most 1024x1024"]),
                ("/tile?size=64x48&window=0,0,8,8&iterations=5001", ["iterations", "at most 5000", "5001"]),
                ("/view?size=64x48&iterations=5001", ["iterations", "at most 5000"]),
                ("/tile?\(Self.tile)&color=histogram", ["histogram", "smooth, gray or bw"]),
                ("/tile?\(Self.tile)&palette=%01", ["palette", "without spaces or control characters"]),
                ("/tile?\(Self.tile)&center=-0.5,%200", ["center", "without spaces"]),
                ("/tile?\(Self.tile)&zoom=", ["zoom", "without spaces or control characters"]),
                ("/tile?\(Self.tile)&julia=%C3%A9", ["julia", "without spaces or control characters"]),
                ("/view?size=64x48&window=0,0,8,8", ["window belongs to a tile"]),
                ("/view?size=64x48&speed=fast", ["unknown parameter 'speed'", "allowed: size"]),
                ("/view?size=64x48&size=64x48", ["size is given twice"]),
                ("/tile?\(Self.tile)&%00=1", ["unknown parameter '", "allowed: size"]),
                ("/tile?window=0,0,8,8&size=" + String(repeating: "9", count: 10_000), ["size", "WxH"]),
            ]
            try await Application(router: server.router()).test(.router) { client in
                for (request, words) in cases {
                    expectOneLineRefusal(try await client.execute(uri: request, method: .get), naming: words, request)
                }
                #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            }
        }

        @Test("values that start with '-' and are valid are taken: a tile and a view of centre -0.5,0")
        func valuesStartingWithMinus() async throws {
            let server = try ExplorerServer(settings: ExplorerServer.Settings())
            try await Application(router: server.router()).test(.router) { client in
                let tile = try await client.execute(
                    uri: "/tile?\(Self.tile)&center=-0.5,-0.25&julia=-0.8,-0.156&palette-offset=0", method: .get)
                #expect(tile.status == .ok, "\(String(buffer: tile.body))")
                let command = tile.headers[.init("X-Mandel-Command")!] ?? ""
                #expect(
                    command.contains("--center -0.5,-0.25") && command.contains("--julia -0.8,-0.156"), "\(command)")
                let view = try await client.execute(uri: "/view?size=64x48&center=-0.5,0&zoom=1e-3", method: .get)
                #expect(view.status == .ok, "\(String(buffer: view.body))")
                let json = try JSONSerialization.jsonObject(with: Data(view.body.readableBytesView)) as? [String: Any]
                #expect(
                    (json?["command"] as? String)?.contains("--center -0.5,0") == true, "\(String(buffer: view.body))")
                #expect(json?["precision"] as? String == "double")
            }
        }
    }
}

/// The query keys the routes document (docs/options.md, "mandel serve").
enum ExplorerServerKeys {
    static let all = [
        "size", "center", "zoom", "precision", "bla", "iterations", "color", "palette", "palette-cycle",
        "palette-offset", "julia", "supersample", "strategy", "window",
    ]
}
