import Foundation

/// A W3C WebDriver session with a headless chromium through chromedriver: the few commands the
/// page's tests need (https://www.w3.org/TR/webdriver2/), over plain HTTP and JSON.
struct WebDriverSession: Sendable {
    /// `http://127.0.0.1:PORT/session/ID`.
    let endpoint: URL
    let http: HTTPClient

    /// How long one command may take before the test gives up on it: chromium's first start
    /// on a loaded 2-core machine takes seconds, and a command that waits in the page
    /// (`executeAsync`) is bounded by the session's own script timeout, which this exceeds.
    static let commandTimeout = 120.0
    /// The session's script timeout: what an asynchronous script may take.
    static let scriptTimeout = 90.0

    /// Starts chromium through the chromedriver listening on `driverPort`.
    ///
    /// - Parameters:
    ///   - profile: A fresh folder for chromium's profile (`--user-data-dir`).
    ///   - windowSize: The window's outer size; ``setViewport(width:height:)`` sets the page's.
    static func start(driverPort: Int, profile: String, windowSize: (Int, Int)) async throws -> WebDriverSession {
        let http = HTTPClient()
        let base = URL(string: "http://127.0.0.1:\(driverPort)/session")!
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "goog:chromeOptions": [
                        "binary": "/usr/bin/chromium",
                        "args": [
                            "--headless", "--no-sandbox", "--user-data-dir=\(profile)",
                            "--window-size=\(windowSize.0),\(windowSize.1)",
                            // One CSS pixel is one screenshot pixel, whatever the machine's display says.
                            "--force-device-scale-factor=1",
                        ],
                    ],
                    "timeouts": [
                        "script": Int(scriptTimeout * 1000), "pageLoad": Int(scriptTimeout * 1000), "implicit": 0,
                    ],
                ]
            ]
        ]
        let body = try JSONSerialization.data(withJSONObject: capabilities)
        let answer = try await http.request("POST", base, json: body, timeout: commandTimeout)
        struct Created: Decodable { let sessionId: String }
        let created = try decode(Created.self, from: answer, command: "POST /session")
        return WebDriverSession(endpoint: base.appendingPathComponent(created.sessionId), http: http)
    }

    /// Ends the session, which closes chromium; never throws (it runs in every outcome).
    func end() async {
        _ = try? await http.request("DELETE", endpoint, timeout: 20)
    }

    /// Loads `url` and returns once the page has loaded.
    func navigate(to url: String) async throws {
        try await command("POST", "url", ["url": url], as: Nothing?.self)
    }

    /// Runs `script` (a function body: `return …`) in the page with `arguments`, and decodes what it returns.
    func execute<Value: Decodable>(
        _ script: String, _ arguments: [any Encodable & Sendable] = [], as type: Value.Type = Value.self
    ) async throws -> Value {
        try await command("POST", "execute/sync", Script(script: script, args: arguments.map { Argument(value: $0) }))
    }

    /// Runs `script` (a function body whose last argument is the callback that ends it) in the
    /// page, waits for the callback, at most ``scriptTimeout``, and decodes its argument.
    func executeAsync<Value: Decodable>(
        _ script: String, _ arguments: [any Encodable & Sendable] = [], as type: Value.Type = Value.self
    ) async throws -> Value {
        try await command("POST", "execute/async", Script(script: script, args: arguments.map { Argument(value: $0) }))
    }

    /// The viewport as a PNG, at the page's device pixels.
    func screenshot() async throws -> Data {
        let base64: String = try await command("GET", "screenshot", NoBody?.none)
        guard let png = Data(base64Encoded: base64) else {
            throw WebDriverFailure(description: "the screenshot is not base64")
        }
        return png
    }

    /// Sets the window's outer size so that the page's viewport (`innerWidth` × `innerHeight`) is
    /// `width` × `height`: the window's size includes the browser's frame, which is measured.
    func setViewport(width: Int, height: Int) async throws {
        struct Rect: Codable {
            let width: Int
            let height: Int
        }
        var outer = Rect(width: width, height: height)
        for _ in 0..<4 {
            let inner: [Int] = try await execute("return [window.innerWidth, window.innerHeight]")
            if inner == [width, height] { return }
            let current: Rect = try await command("GET", "window/rect", NoBody?.none)
            outer = Rect(width: current.width + width - inner[0], height: current.height + height - inner[1])
            let _: Rect = try await command("POST", "window/rect", outer)
        }
        let inner: [Int] = try await execute("return [window.innerWidth, window.innerHeight]")
        guard inner == [width, height] else {
            throw WebDriverFailure(
                description: "the viewport is \(inner[0])x\(inner[1]), not \(width)x\(height), with the window at "
                    + "\(outer.width)x\(outer.height)")
        }
    }

    // MARK: - Commands

    /// A command that answers nothing (`null`).
    struct Nothing: Decodable {}

    /// A command that sends no body.
    private struct NoBody: Encodable {}

    @discardableResult
    private func command<Value: Decodable>(
        _ method: String, _ path: String, _ body: (some Encodable)?, as type: Value.Type = Value.self
    ) async throws -> Value {
        let data = try body.map { try JSONEncoder().encode($0) }
        let answer = try await http.request(
            method, endpoint.appendingPathComponent(path), json: data ?? (method == "POST" ? Data("{}".utf8) : nil),
            timeout: Self.commandTimeout)
        return try Self.decode(Value.self, from: answer, command: "\(method) \(path)")
    }

    private static func decode<Value: Decodable>(
        _ type: Value.Type, from answer: HTTPClient.Answer, command: String
    ) throws -> Value {
        guard answer.status == 200 else {
            let refusal = try? JSONDecoder().decode(Refusal.self, from: answer.body)
            let message = refusal.map { "\($0.value.error): \($0.value.message)" } ?? answer.text
            throw WebDriverFailure(
                description: "\(command): status \(answer.status): "
                    + (message.split(separator: "\n").first.map(String.init) ?? ""))
        }
        do {
            return try JSONDecoder().decode(Reply<Value>.self, from: answer.body).value
        } catch {
            throw WebDriverFailure(description: "\(command): unexpected answer \(answer.text.prefix(300)): \(error)")
        }
    }

    /// Every answer: `{"value": …}`.
    private struct Reply<Content: Decodable>: Decodable { let value: Content }

    /// A refused command's answer.
    private struct Refusal: Decodable {
        struct Details: Decodable {
            let error: String
            let message: String
        }
        let value: Details
    }

    private struct Script: Encodable {
        let script: String
        let args: [Argument]
    }

    /// A script's argument: any JSON value.
    private struct Argument: Encodable {
        let value: any Encodable & Sendable

        func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    }
}

/// A command that chromedriver refused or answered oddly.
struct WebDriverFailure: Error, CustomStringConvertible {
    let description: String
}
