import Dispatch
import Foundation

/// The test's own HTTP/1.1 requests to the loopback address, one connection each
/// (`Connection: close`): to chromedriver, and to `mandel serve` (tiles, `/stats`) beside the browser.
///
/// Its own, over a socket: FoundationNetworking's URLSession refuses chromedriver's answers
/// ("Failed writing header"), whose header lines have no space after the colon ("Content-Length:884").
struct HTTPClient: Sendable {
    /// An answer: the status, the header fields (names in lower case) and the body.
    struct Answer: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data

        /// The body as text, for messages.
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends one request to `url` (on 127.0.0.1) and waits for its whole answer, at most `timeout` seconds.
    func request(_ method: String, _ url: URL, json body: Data? = nil, timeout: Double) async throws -> Answer {
        // Blocking socket calls, on Dispatch's threads rather than the cooperative pool's two.
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.exchange(method, url, body: body, timeout: timeout) })
            }
        }
    }

    /// GETs `url` and decodes its JSON (snake_case keys) as `Value`; throws unless the status is 200.
    func json<Value: Decodable>(_ url: URL, as type: Value.Type = Value.self, timeout: Double) async throws -> Value {
        let answer = try await request("GET", url, timeout: timeout)
        guard answer.status == 200 else {
            throw HTTPFailure(description: "GET \(url): status \(answer.status): \(answer.text.prefix(300))")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Value.self, from: answer.body)
    }

    // MARK: - One exchange

    private static func exchange(_ method: String, _ url: URL, body: Data?, timeout: Double) throws -> Answer {
        let what = "\(method) \(url.absoluteString.prefix(200))"
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: true), let port = parts.port,
            ["127.0.0.1", "localhost"].contains(parts.host)
        else { throw HTTPFailure(description: "\(what): not a loopback URL with a port") }
        let deadline = DispatchTime.now() + timeout
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else {
            throw HTTPFailure(description: "\(what): socket: \(String(cString: strerror(errno)))")
        }
        defer { close(socket) }
        // Each read and write waits at most a second, so that the deadline is looked at every second.
        var second = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &second, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &second, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            throw HTTPFailure(description: "\(what): connect: \(String(cString: strerror(errno)))")
        }

        let target = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        var head = "\(method) \(target)\(parts.percentEncodedQuery.map { "?" + $0 } ?? "") HTTP/1.1\r\n"
        head += "Host: 127.0.0.1:\(port)\r\nConnection: close\r\nAccept: */*\r\n"
        if let body { head += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(body.count)\r\n" }
        var outgoing = Data((head + "\r\n").utf8)
        if let body { outgoing.append(body) }
        var sent = 0
        while sent < outgoing.count {
            let count = outgoing.withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress! + sent, outgoing.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && (errno == EAGAIN || errno == EINTR) && DispatchTime.now() < deadline { continue }
            guard count > 0 else {
                throw HTTPFailure(description: "\(what): send: \(String(cString: strerror(errno)))")
            }
            sent += count
        }

        var incoming = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { break }
            if count < 0 {
                guard errno == EAGAIN || errno == EINTR else {
                    throw HTTPFailure(description: "\(what): recv: \(String(cString: strerror(errno)))")
                }
                if DispatchTime.now() >= deadline {
                    throw HTTPFailure(description: "\(what): no whole answer within \(timeout) s")
                }
                continue
            }
            incoming.append(contentsOf: buffer[0..<count])
            // chromedriver keeps the connection open despite `Connection: close`: its answer ends at its length.
            if isWhole(incoming) { break }
        }
        return try parse(incoming, what: what)
    }

    /// Whether `incoming` holds a whole answer: its header and as many bytes as its Content-Length
    /// says, or a chunked body's last chunk. An answer with neither ends with its connection.
    private static func isWhole(_ incoming: Data) -> Bool {
        guard let end = incoming.firstRange(of: Data("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: incoming[..<end.lowerBound], as: UTF8.self).lowercased()
        if let length = head.firstMatch(of: /\r\ncontent-length:\s*(\d+)/).flatMap({ Int($0.output.1) }) {
            return incoming.distance(from: end.upperBound, to: incoming.endIndex) >= length
        }
        if head.contains(/\r\ntransfer-encoding:\s*chunked/) {
            return incoming.suffix(5) == Data("0\r\n\r\n".utf8)
        }
        return false
    }

    /// Reads an answer that ended with its connection: the status line, the header fields, the body.
    private static func parse(_ incoming: Data, what: String) throws -> Answer {
        guard let end = incoming.firstRange(of: Data("\r\n\r\n".utf8)) else {
            throw HTTPFailure(description: "\(what): the answer ends in its header (\(incoming.count) bytes)")
        }
        let lines = String(decoding: incoming[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusWords = lines[0].split(separator: " ")
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else {
            throw HTTPFailure(description: "\(what): not a status line: \(lines[0].prefix(100))")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Data(incoming[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            body = try unchunked(body, what: what)
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= length else {
                throw HTTPFailure(description: "\(what): the body has \(body.count) of its \(length) bytes")
            }
            body = body.prefix(length)
        }
        return Answer(status: status, headers: headers, body: body)
    }

    /// A chunked body's bytes.
    private static func unchunked(_ data: Data, what: String) throws -> Data {
        var body = Data()
        var rest = data[...]
        while let lineEnd = rest.firstRange(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { break }
            if size == 0 { return body }
            let start = lineEnd.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size + 2 else { break }
            body.append(rest[start..<rest.index(start, offsetBy: size)])
            rest = rest[rest.index(start, offsetBy: size + 2)...]
        }
        throw HTTPFailure(description: "\(what): a chunked body cut short")
    }
}

/// A request that did not get the answer it needed.
struct HTTPFailure: Error, CustomStringConvertible {
    let description: String
}
