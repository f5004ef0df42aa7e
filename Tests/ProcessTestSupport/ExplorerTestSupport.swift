import Deadline
import Foundation
package import Testing

// Shared by MandelServerTests and MandelCommandTests: a raw HTTP/1.1
// client, what `/stats` says, and the deep location the tests render.

/// One HTTP/1.1 request over a plain TCP socket to a live server, which the test may close
/// mid-reply: the only cancel a browser's HTTP/1.1 connection can send.
///
/// Every call blocks its thread: call it from `withDeadline` (Dispatch's threads), or from a
/// test whose server is another process.
package final class HTTPConnection {
    private var descriptor: Int32

    /// Connects to `host:port`, trying each of its addresses (`localhost` may be IPv6 or IPv4 first).
    package init(port: Int, host: String = "localhost") throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw HTTPFailure("cannot resolve \(host)")
        }
        defer { freeaddrinfo(first) }
        descriptor = -1
        var failure = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let address = next, descriptor < 0 {
            next = address.pointee.ai_next
            let candidate = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard candidate >= 0 else { continue }
            if connect(candidate, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                descriptor = candidate
            } else {
                failure = "errno \(errno)"
                Glibc.close(candidate)
            }
        }
        guard descriptor >= 0 else { throw HTTPFailure("connect to \(host):\(port): \(failure)") }
    }

    deinit { close() }

    /// Sends `GET target` (a path with its query, percent-encoded as it should go on the wire).
    package func send(get target: String) throws {
        try send(raw: Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
    }

    /// Sends `request` as it is: a head, a body, or any part of either.
    package func send(raw request: [UInt8]) throws {
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw HTTPFailure("send: errno \(errno)") }
            sent += count
        }
    }

    /// Reads the reply: the head, then `Content-Length` bytes (or up to the end of the stream).
    package func reply(deadline seconds: Double = 60, waitingFor what: String) throws -> HTTPReply {
        let end = Date().addingTimeInterval(seconds)
        var received: [UInt8] = []
        var head: (status: Int, headers: [String: String], bodyStart: Int)?
        while true {
            if head == nil, let blank = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                head = try Self.parseHead(Array(received[..<blank.lowerBound]), bodyStart: blank.upperBound)
            }
            if let head, let length = head.headers["content-length"].flatMap(Int.init),
                received.count - head.bodyStart >= length
            {
                return HTTPReply(
                    status: head.status, headers: head.headers,
                    body: Array(received[head.bodyStart..<(head.bodyStart + length)]))
            }
            guard let bytes = try readSome(by: end, deadline: seconds, waitingFor: what) else { continue }
            if bytes.isEmpty {
                guard let head else { throw HTTPFailure("the server closed the connection before a reply to \(what)") }
                return HTTPReply(status: head.status, headers: head.headers, body: Array(received[head.bodyStart...]))
            }
            received += bytes
        }
    }

    /// Reads until `marker` has come `occurrences` times (a stream that never ends, such as server-sent
    /// events), and returns everything read.
    package func receive(
        until marker: [UInt8], occurrences: Int, deadline seconds: Double, waitingFor what: String
    )
        throws -> [UInt8]
    {
        let end = Date().addingTimeInterval(seconds)
        var received: [UInt8] = []
        while received.ranges(of: marker).count < occurrences {
            guard let bytes = try readSome(by: end, deadline: seconds, waitingFor: what) else { continue }
            guard !bytes.isEmpty else { throw HTTPFailure("the server ended the stream waiting for \(what)") }
            received += bytes
        }
        return received
    }

    /// What the socket has, waiting at most a second (and never past `end`): nil if nothing came yet,
    /// empty at the end of the stream.
    private func readSome(by end: Date, deadline seconds: Double, waitingFor what: String) throws -> [UInt8]? {
        let left = end.timeIntervalSinceNow
        guard left > 0 else { throw DeadlinePassed(waitingFor: what, seconds: seconds) }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(min(left, 1) * 1000) + 1) >= 0 else { throw HTTPFailure("poll: errno \(errno)") }
        guard poller.revents != 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw HTTPFailure("recv: errno \(errno) waiting for \(what)") }
        return Array(buffer[..<count])
    }

    /// Ends what this side sends (the server reads the end of the stream) and keeps reading.
    package func finishSending() {
        if descriptor >= 0 { _ = shutdown(descriptor, Int32(SHUT_WR)) }
    }

    /// Closes the socket (at once, whatever the server is doing).
    package func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    private static func parseHead(_ bytes: [UInt8], bodyStart: Int) throws -> (Int, [String: String], Int) {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let words = lines[0].split(separator: " ")
        guard words.count >= 2, let status = Int(words[1]) else { throw HTTPFailure("a bad status line: \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return (status, headers, bodyStart)
    }

    /// `GET target` on a new connection, and its reply.
    package static func get(_ target: String, port: Int, deadline seconds: Double = 60) throws -> HTTPReply {
        let connection = try HTTPConnection(port: port)
        defer { connection.close() }
        try connection.send(get: target)
        return try connection.reply(deadline: seconds, waitingFor: "GET \(target.prefix(200))")
    }
}

/// A reply's status, headers (names in lower case) and body.
package struct HTTPReply {
    package let status: Int
    package let headers: [String: String]
    package let body: [UInt8]

    package var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object.
    package func json() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], "not a JSON object: \(text)")
    }
}

package struct HTTPFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// What `GET /stats` says, read by key.
package struct StatsReading {
    package let object: [String: Any]

    package init(_ object: [String: Any]) { self.object = object }

    /// `GET /stats` of the live server at `port`.
    package static func fetch(port: Int, deadline seconds: Double = 60) throws -> StatsReading {
        let reply = try HTTPConnection.get("/stats", port: port, deadline: seconds)
        guard reply.status == 200 else { throw HTTPFailure("/stats answered \(reply.status): \(reply.text)") }
        return StatsReading(try reply.json())
    }

    /// The object of one strategy.
    package func strategy(_ name: String) -> [String: Any] {
        (object["strategies"] as? [String: Any])?[name] as? [String: Any] ?? [:]
    }

    /// A whole number of `strategy`'s (tiles), or -1 where it is missing.
    package func count(_ key: String, of name: String) -> Int { (strategy(name)[key] as? NSNumber)?.intValue ?? -1 }

    /// A number of `strategy`'s (seconds), or nan where it is missing or null.
    package func seconds(_ key: String, of name: String) -> Double {
        (strategy(name)[key] as? NSNumber)?.doubleValue ?? .nan
    }

    /// `p50`, `p95` or `max` of a percentile object of `strategy`'s, or nan where it is null.
    package func percentile(_ key: String, _ which: String, of name: String) -> Double {
        ((strategy(name)[key] as? [String: Any])?[which] as? NSNumber)?.doubleValue ?? .nan
    }

    /// A whole number of a top-level object (`queue`, `references`), or -1.
    package func count(_ key: String, in section: String) -> Int {
        ((object[section] as? [String: Any])?[key] as? NSNumber)?.intValue ?? -1
    }
}

/// The Kalles Fraktaler location "1e50" (Benchmarks/deep-locations.tsv), at its full precision.
package enum DeepLocation {
    /// `center=re,im&zoom=z`, read from the file as it is.
    package static let query1e50: String = {
        let file = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("../../Benchmarks/deep-locations.tsv")
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        let fields = text.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            .first { $0.first == "1e50" }
        guard let fields, fields.count > 4 else { return "missing-location-1e50-in-\(file.path)" }
        return "center=\(fields[1]),\(fields[2])&zoom=\(fields[4])"
    }()

    /// The same view as `render` options.
    package static var arguments1e50: [String] {
        query1e50.split(separator: "&").flatMap { pair -> [String] in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return ["--\(parts[0])", String(parts[1])]
        }
    }
}

/// A tile that renders for tens of seconds: inside the period-3 bulb, which the kernel's
/// shortcuts (the main cardioid, the period-2 bulb) do not cover, every pixel iterates to the
/// limit. Between two looks at the cancel flag a worker renders one row of a 64-pixel tile,
/// 64 × 5,000,000 iterations (0.06 s here), and the whole window 3.3 × 10¹¹: about 45
/// processor-seconds, over 20 s on two processors (measured: 9.1 processor-seconds at 1,000,000
/// iterations, 6.5 s of wall time, on a machine building beside it).
package enum SlowTile {
    /// How long a cancel or a stop may take to end the slow tile, on a machine busy with the rest
    /// of the suite. The tile alone takes over 20 s, so an end within 5 s is the cancel's, not
    /// the tile's own; a quiet machine takes 0.01 to 0.2 s, and the suite's load stretched a
    /// `tasks` cancel to 1.7 s (CI, 2026-11-27, against the 1 s bound it had then). The bound
    /// tells a cancel that works from one that waits for the tile: how fast a cancel is on a
    /// quiet machine is measured by the page's benchmark, not here.
    package static let endBound = 5.0

    /// `/tile?…` of a 256×256 window (the page's tile side; sixteen 64×64 tiles) in the middle of the bulb.
    package static func target(strategy: String, iterations: Int = 5_000_000) -> String {
        "/tile?strategy=\(strategy)&size=512x512&center=-0.1225,0.7449&zoom=30&iterations=\(iterations)"
            + "&window=128,128,256,256"
    }

    /// A small quick tile of the same view's picture, 20 iterations.
    package static func quickTarget(strategy: String) -> String {
        "/tile?strategy=\(strategy)&size=512x512&center=-0.1225,0.7449&zoom=2&iterations=20&window=0,0,16,16"
    }
}

/// Checks what `/stats` says of one tile cancelled while it rendered, `secondsSinceSent` after it
/// was sent: counted once, never sent, processor time spent and wasted (at most what the
/// processors could do meanwhile), and a cancel latency above 0 and under ``SlowTile/endBound``.
package func expectOneCancelledRendering(
    _ stats: StatsReading, strategy: String, secondsSinceSent: Double,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let count = { (key: String) in stats.count(key, of: strategy) }
    #expect(count("tiles_requested") == 1, sourceLocation: sourceLocation)
    #expect(count("tiles_cancelled_rendering") == 1, sourceLocation: sourceLocation)
    #expect(count("tiles_cancelled") == 1 && count("tiles_cancelled_queued") == 0, sourceLocation: sourceLocation)
    #expect(count("tiles_sent") == 0 && count("tiles_wasted") == 0, sourceLocation: sourceLocation)
    #expect(count("tiles_failed") == 0 && count("tiles_refused") == 0, sourceLocation: sourceLocation)
    let wasted = stats.seconds("cpu_seconds_wasted", of: strategy)
    let processors = Double(ProcessInfo.processInfo.activeProcessorCount)
    #expect(wasted > 0.01, "cpu_seconds_wasted \(wasted)", sourceLocation: sourceLocation)
    #expect(
        wasted <= secondsSinceSent * processors + 0.05, "cpu_seconds_wasted \(wasted) in \(secondsSinceSent) s",
        sourceLocation: sourceLocation)
    #expect(stats.seconds("cpu_seconds", of: strategy) == wasted, "nothing was sent", sourceLocation: sourceLocation)
    // What the render spent after the client went away: part of the waste, at most the processors' time meanwhile.
    let afterCancel = stats.seconds("cpu_seconds_after_cancel", of: strategy)
    let latency = stats.percentile("cancel_latency_seconds", "max", of: strategy)
    #expect(
        afterCancel >= 0 && afterCancel <= wasted && afterCancel <= latency * processors + 0.05,
        "cpu_seconds_after_cancel \(afterCancel), wasted \(wasted), latency \(latency)", sourceLocation: sourceLocation)
    #expect(latency > 0 && latency < SlowTile.endBound, "cancel latency \(latency) s", sourceLocation: sourceLocation)
    #expect(stats.percentile("cancel_latency_seconds", "p50", of: strategy) == latency, sourceLocation: sourceLocation)
    #expect(stats.percentile("render_seconds", "max", of: strategy).isNaN, "none sent", sourceLocation: sourceLocation)
}

/// Waits until `/stats` counts `count` tiles of `strategy` sent: a tile counts once its last byte
/// went out, which may be just after the client read it.
package func waitForSent(_ count: Int, of strategy: String, port: Int) throws {
    try waitUntil("\(count) \(strategy) tiles counted as sent", seconds: 10) {
        try StatsReading.fetch(port: port).count("tiles_sent", of: strategy) == count
    }
}

/// Polls `condition` every 20 ms until it holds, at most `seconds`; throws ``DeadlinePassed`` then.
package func waitUntil(_ what: String, seconds: Double = 30, _ condition: () throws -> Bool) throws {
    let end = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < end else { throw DeadlinePassed(waitingFor: what, seconds: seconds) }
        usleep(20_000)
    }
}
