import Foundation
import Hummingbird
import HummingbirdTesting
import MandelServer
import ProcessTestSupport
import Testing

extension ExplorerServerTests {
    @Suite("/stats and /config: every documented key")
    struct StatsShapeTests {
        /// The keys docs/options.md documents for each strategy in `/stats`.
        static let strategyKeys = [
            "tiles_requested", "tiles_sent", "tiles_refused", "tiles_cancelled", "tiles_cancelled_queued",
            "tiles_cancelled_rendering", "tiles_wasted", "tiles_failed", "cpu_seconds", "cpu_seconds_wasted",
            "cpu_seconds_after_cancel",
            "cancel_latency_seconds", "render_seconds",
        ]

        static func json(_ response: TestResponse) throws -> [String: Any] {
            try #require(
                try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
        }

        @Test("/stats has every key for all 8 strategies, counts that add up, and times within what the tiles took")
        func statsShape() async throws {
            let started = Date()
            var settings = ExplorerServer.Settings()
            settings.queueCapacity = 7
            let server = try ExplorerServer(settings: settings)
            defer { server.stopEverything() }
            try await Application(router: server.router()).test(.router) { client in
                let fresh = StatsReading(try Self.json(try await client.execute(uri: "/stats", method: .get)))
                #expect(
                    Set((fresh.object["strategies"] as? [String: Any])?.keys ?? [:].keys)
                        == Set(TileIdentityTests.strategies))
                for name in TileIdentityTests.strategies {
                    #expect(
                        Set(fresh.strategy(name).keys) == Set(Self.strategyKeys),
                        "\(name): \(fresh.strategy(name).keys)")
                    for key in Self.strategyKeys where key.hasPrefix("tiles") {
                        #expect(fresh.count(key, of: name) == 0)
                    }
                    #expect(fresh.seconds("cpu_seconds", of: name) == 0)
                    #expect(fresh.seconds("cpu_seconds_after_cancel", of: name) == 0)
                    for which in ["p50", "p95", "max"] {
                        // Present, and null: nothing measured yet.
                        #expect((fresh.strategy(name)["render_seconds"] as? [String: Any])?[which] is NSNull, "\(name)")
                        #expect((fresh.strategy(name)["cancel_latency_seconds"] as? [String: Any])?[which] is NSNull)
                    }
                }
                #expect(fresh.count("capacity", in: "queue") == 7 && fresh.count("slots", in: "queue") == 1)
                #expect(fresh.count("rendering", in: "queue") == 0 && fresh.count("waiting", in: "queue") == 0)
                for key in ["kept", "found", "computed"] { #expect(fresh.count(key, in: "references") == 0) }

                // Three tiles of two strategies, and one refused before it was requested (a bad value).
                for strategy in ["apply", "apply", "pthread"] {
                    let tile = try await client.execute(
                        uri: "/tile?strategy=\(strategy)&size=600x400&iterations=2000&window=100,100,128,128",
                        method: .get)
                    #expect(tile.status == .ok)
                }
                #expect(
                    try await client.execute(uri: "/tile?strategy=apply&window=0,0,0,0", method: .get).status.code
                        == 400)
                let elapsed = Date().timeIntervalSince(started)
                let stats = StatsReading(try Self.json(try await client.execute(uri: "/stats", method: .get)))
                let uptime = try #require(stats.object["uptime_seconds"] as? Double)
                #expect(uptime > 0 && uptime < elapsed + 1, "uptime \(uptime) s")
                for (name, sent) in [("apply", 2), ("pthread", 1), ("gcd", 0), ("process", 0)] {
                    #expect(stats.count("tiles_requested", of: name) == sent, "\(name): the 400 is not a request")
                    #expect(stats.count("tiles_sent", of: name) == sent, "\(name)")
                    let cpu = stats.seconds("cpu_seconds", of: name)
                    let processors = Double(ProcessInfo.processInfo.activeProcessorCount)
                    #expect(sent == 0 ? cpu == 0 : cpu > 0 && cpu <= elapsed * processors, "\(name): cpu \(cpu)")
                    #expect(stats.seconds("cpu_seconds_wasted", of: name) == 0)
                    #expect(stats.seconds("cpu_seconds_after_cancel", of: name) == 0)
                    let (p50, p95, max) = (
                        stats.percentile("render_seconds", "p50", of: name),
                        stats.percentile("render_seconds", "p95", of: name),
                        stats.percentile("render_seconds", "max", of: name)
                    )
                    if sent == 0 {
                        #expect(p50.isNaN && p95.isNaN && max.isNaN, "\(name)")
                    } else {
                        #expect(p50 > 0 && p50 <= p95 && p95 <= max && max < elapsed, "\(name): \(p50) \(p95) \(max)")
                    }
                }
            }
        }

        @Test("/config lists the 8 strategies with their details, the start view, the palettes, colours and the limit")
        func configShape() async throws {
            var settings = ExplorerServer.Settings()
            settings.start = [("center", "-0.75,0.1"), ("zoom", "3"), ("iterations", "500"), ("strategy", "tasks")]
            settings.limits.maximumIterations = 12345
            let server = try ExplorerServer(settings: settings)
            try await Application(router: server.router()).test(.router) { client in
                let response = try await client.execute(uri: "/config", method: .get)
                #expect(response.headers[.contentType] == "application/json")
                let config = try Self.json(response)
                #expect(
                    Set(config.keys) == ["start", "tile_side", "strategies", "palettes", "colors", "max_iterations"])
                let strategies = try #require(config["strategies"] as? [[String: Any]])
                #expect(strategies.compactMap { $0["name"] as? String } == TileIdentityTests.strategies)
                for strategy in strategies {
                    #expect((strategy["summary"] as? String)?.isEmpty == false, "\(strategy)")
                    let details = strategy["details"] as? [String: String] ?? [:]
                    #expect(
                        Set(details.keys) == ["cancel", "waits", "priority", "dependency", "recovers"],
                        "\(details.keys)")
                    #expect(details.values.allSatisfy { !$0.isEmpty }, "\(details)")
                }
                #expect(
                    config["start"] as? [String: String]
                        == ["center": "-0.75,0.1", "zoom": "3", "iterations": "500", "strategy": "tasks"])
                #expect(config["tile_side"] as? Int == 256)
                #expect(config["max_iterations"] as? Int == 12345)
                #expect(Set(config["colors"] as? [String] ?? []) == ["bw", "gray", "smooth"], "no histogram for tiles")
                let palettes = config["palettes"] as? [String] ?? []
                #expect(palettes.contains("classic") && palettes.contains("fire") && palettes.count >= 6, "\(palettes)")
            }
        }
    }
}
