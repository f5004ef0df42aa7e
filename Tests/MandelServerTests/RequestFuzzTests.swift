import Foundation
import Hummingbird
import HummingbirdTesting
import MandelServer
import ProcessTestSupport
import Testing

/// Seeded hostile queries: the same seed gives the same requests, so a failure names its seed and index.
struct QueryFuzzer {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// SplitMix64: the next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func pick<T>(_ list: [T]) -> T { list[Int(next() % UInt64(list.count))] }

    /// Keys: every documented one (most often), and hostile ones.
    static let keys =
        ExplorerServerKeys.all + ExplorerServerKeys.all + [
            "preset", "Size", "size ", "%73ize", "", "-size", "--size", "window%00", "%E2%80%AE", "a=b", "%FF",
        ]

    /// Values of every class that has broken a parser: valid ones, edges, huge, signed, encoded, blank.
    static let values = [
        "64x48", "8", "1", "0", "-1", "2147483647", "2147483648", "9223372036854775808", "1e308", "1e-320",
        "nan", "inf", "-inf", "0x10", "1_000", "-0.5,0", "-0.75,0.1", "0.3,-0.5", "1,2,3", ",", ",,,", "-", "--",
        "--size", "-0", "1e400", "1e1000001", "1.333e50", "bw", "gray", "smooth", "histogram", "fire", "classic",
        "%23000000,%23ffffff", "%23zzz", "perturbation", "double", "on", "off", "gcd", "process", "serial",
        "0,0,8,8", "-4,-4,8,8", "0,0,0,0", "0,0,2000,2000", "1,1,1", "%00", "%0A", "%0D%0A", "%20", "%", "%zz",
        "%C3%A9",
        "%F0%9F%98%80", "%FF%FE", "%E2%80%AE", "%7F", "+", "'", "\"", "%3B", "%26", "%3D", "..%2F..%2Fetc",
        String(repeating: "9", count: 10_000), String(repeating: "a,", count: 5_000),
        String(repeating: "%41", count: 3_400),
    ]

    /// A query of one to five pairs, sometimes mangled (no `=`, doubled `&`, a bare key).
    mutating func query() -> String {
        var pairs: [String] = []
        for _ in 0..<(1 + Int(next() % 5)) {
            let key = pick(Self.keys)
            let value = pick(Self.values)
            switch next() % 8 {
            case 0: pairs.append(key)
            case 1: pairs.append(key + "=" + value + "=" + value)
            case 2: pairs.append("")
            default: pairs.append(key + "=" + value)
            }
        }
        return pairs.joined(separator: next() % 6 == 0 ? "&&" : "&")
    }
}

extension ExplorerServerTests {
    @Suite("Hostile queries")
    struct RequestFuzzTests {
        /// What a tile always carries, unless the fuzz repeats a key: a small window and a few iterations.
        static let cheap = "window=0,0,8,8&iterations=40"

        @Test(
            "random and hostile queries get 400 with one line, or 200 when valid; never a 500, and the server lives on",
            arguments: [(route: "/tile", seed: UInt64(0x7A11)), (route: "/view", seed: UInt64(0x5EED))])
        func hostileQueries(route: String, seed: UInt64) async throws {
            var settings = ExplorerServer.Settings()
            settings.limits.maximumIterations = 1000
            let server = try ExplorerServer(settings: settings)
            defer { server.stopEverything() }
            try await Application(router: server.router()).test(.router) { client in
                var fuzzer = QueryFuzzer(seed: seed)
                var answers: [Int: Int] = [:]
                for index in 0..<200 {
                    let query = fuzzer.query()
                    // A tile's query starts cheap; a repeated key then makes it a refusal, not a long render.
                    let request = route == "/tile" ? "/tile?\(Self.cheap)&\(query)" : "/view?\(query)"
                    let response = try await client.execute(uri: request, method: .get)
                    let body = String(buffer: response.body)
                    let shown = "seed \(seed), case \(index): \(request.prefix(300))"
                    answers[Int(response.status.code), default: 0] += 1
                    #expect(
                        [200, 400].contains(response.status.code), "\(shown): \(response.status) \(body.prefix(300))")
                    if response.status == .badRequest {
                        #expect(
                            body.hasSuffix("\n") && body.dropLast().allSatisfy { $0 != "\n" && $0 != "\r" }, "\(shown)")
                        #expect(body.unicodeScalars.allSatisfy { $0.value >= 0x20 || $0 == "\n" }, "\(shown): \(body)")
                    } else if response.status == .ok {
                        let kind = route == "/tile" ? "image/png" : "application/json"
                        #expect(response.headers[.contentType] == kind, "\(shown)")
                    }
                }
                #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
                // The fuzz reached both answers: it is not all one class of input.
                #expect(answers[400, default: 0] > 50 && answers[200, default: 0] > 3, "answers by status: \(answers)")
            }
        }

        @Test(
            "over a real socket: percent-encoded control bytes, NUL, a 100 KB request line; 400 or 200, and /health after"
        )
        func hostileOverTheWire() async throws {
            try await withLiveServer(ExplorerServer.Settings(), waitingFor: "hostile requests over a socket") {
                port, _ in
                let targets = [
                    "/tile?window=0,0,8,8&palette=%00%01%02", "/tile?window=0,0,8,8&center=%0D%0AX-Injected:%201",
                    "/view?zoom=%FF%FE%FD", "/view?%00", "/view?center=-0.5,0", "/tile?window=0,0,8,8&iterations=40",
                    "/view?size=" + String(repeating: "9", count: 100_000),
                ]
                for target in targets {
                    let reply = try HTTPConnection.get(target, port: port, deadline: 30)
                    #expect(
                        [200, 400].contains(reply.status),
                        "\(target.prefix(100)): \(reply.status) \(reply.text.prefix(200))")
                    #expect(reply.headers["x-injected"] == nil)
                    if reply.status == 400 && !reply.body.isEmpty {
                        #expect(
                            reply.text.filter { $0 == "\n" }.count == 1,
                            "\(target.prefix(100)): \(reply.text.prefix(200))")
                    }
                }
                #expect(try HTTPConnection.get("/health", port: port, deadline: 10).text == "ok\n")
            }
        }

        @Test(
            "GETs with bodies: whole, chunked or large they are served; cut short, closed or half-closed, the server serves on"
        )
        func requestBodies() async throws {
            try await withLiveServer(ExplorerServer.Settings(), waitingFor: "requests with bodies") { port, _ in
                let target = "/tile?size=64x48&window=0,0,16,12&iterations=40"
                let plain = try HTTPConnection.get(target, port: port, deadline: 30)
                #expect(plain.status == 200)
                func head(_ fields: String) -> [UInt8] {
                    Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\(fields)\r\n".utf8)
                }
                let large = [UInt8](repeating: 0x61, count: 300_000)
                let whole: [(String, [UInt8])] = [
                    ("a body of 5 bytes", head("Content-Length: 5\r\n") + Array("hello".utf8)),
                    ("a chunked body", head("Transfer-Encoding: chunked\r\n") + Array("5\r\nhello\r\n0\r\n\r\n".utf8)),
                    ("a body of 300 KB", head("Content-Length: \(large.count)\r\n") + large),
                ]
                for (what, request) in whole {
                    let connection = try HTTPConnection(port: port)
                    defer { connection.close() }
                    try connection.send(raw: request)
                    let reply = try connection.reply(deadline: 30, waitingFor: what)
                    #expect(reply.status == 200, "\(what): \(reply.status) \(reply.text.prefix(200))")
                    #expect(reply.body == plain.body, "\(what): not the tile's bytes")
                }
                // Bodies that never end: the connection closed at once, or half-closed (the server reads the end of
                // the stream and may answer or close; either way it serves on).
                let short = head("Content-Length: 100000\r\n") + Array(repeating: 0x61, count: 1000)
                for halfClose in [false, true] {
                    let connection = try HTTPConnection(port: port)
                    try connection.send(raw: short)
                    if halfClose {
                        connection.finishSending()
                        _ = try? connection.reply(deadline: 10, waitingFor: "a body cut short")
                    }
                    connection.close()
                }
                // The other routes, with a large body each.
                for route in ["/health", "/view?center=-0.5,0", "/config", "/stats", "/"] {
                    let connection = try HTTPConnection(port: port)
                    defer { connection.close() }
                    try connection.send(
                        raw: Array(
                            "GET \(route) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(large.count)\r\n\r\n"
                                .utf8) + large)
                    let reply = try connection.reply(deadline: 30, waitingFor: "\(route) with a body")
                    #expect(reply.status == 200, "\(route): \(reply.status)")
                }
                let health = try HTTPConnection.get("/health", port: port, deadline: 10)
                #expect(health.text.trimmingCharacters(in: .newlines) == "ok" && health.status == 200)
                #expect(try HTTPConnection.get(target, port: port, deadline: 30).body == plain.body)
            }
        }
    }
}
