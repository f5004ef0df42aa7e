import Foundation
import ProcessTestSupport
import Testing

/// A field that no test reads is a field that can be wrong unnoticed: every name docs/options.md
/// gives a JSON or CSV output (the passages between `<!-- fields … -->` and `<!-- /fields -->`) must be
/// read by some test, as a quoted key or as a property of a decoded type; and every field the
/// outputs write must be among those names, or it escapes the first check by being undocumented.
///
/// The reads are found in the test sources as text: this file's own are left out, since it names
/// fields without reading them.
@Suite("Every documented output field is read by a test")
struct DocumentedFieldsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The names in backquotes in the marked passages: lower-case words joined by underscores.
    static func documentedNames() throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent("docs/options.md"), encoding: .utf8)
        var names = Set<String>()
        var inside = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("<!-- fields") { inside = true } else if line.hasPrefix("<!-- /fields") { inside = false }
            guard inside else { continue }
            for match in line.matches(of: /`([a-z][a-z0-9]*(?:_[a-z0-9]+)*)`/) { names.insert(String(match.1)) }
        }
        return names
    }

    /// Every test source but this file, which names no field.
    static func testSources() throws -> String {
        let tests = root.appendingPathComponent("Tests")
        let files =
            FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" && $0.path != #filePath } ?? []
        return try files.map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
    }

    /// `snake_case` as a decoded type's property: `snakeCase`.
    static func camelCase(_ name: String) -> String {
        let words = name.split(separator: "_")
        return String(words[0]) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    @Test("every field of docs/options.md's JSON and CSV outputs is read by some test")
    func everyFieldRead() throws {
        let names = try Self.documentedNames()
        // The passages were found: render's report alone documents over 60 fields, all of them 150 names.
        #expect(names.count >= 140, "\(names.count) names: are the markers in docs/options.md?")
        let sources = try Self.testSources()
        let unread = names.filter { name in
            !sources.contains("\"\(name)\"") && !sources.contains("let \(Self.camelCase(name)):")
        }
        #expect(unread.isEmpty, "documented, read by no test: \(unread.sorted().joined(separator: ", "))")
    }

    /// The objects whose keys are names, not fields (a strategy's, a query key's): their values are
    /// fields, their keys are not. `strategies` of `/stats` and `/events` and `/events`' `totals`
    /// are keyed by strategy, `/config`'s `start` by the page's query keys (render's option names).
    static let objectsKeyedByName: Set<String> = ["strategies", "totals", "start"]

    /// Every key of `value` at any depth, but the keys of ``objectsKeyedByName``' objects.
    static func fields(of value: Any, keyedByName: Bool = false) -> Set<String> {
        if let array = value as? [Any] { return array.reduce(into: []) { $0.formUnion(fields(of: $1)) } }
        guard let object = value as? [String: Any] else { return [] }
        var found: Set<String> = keyedByName ? [] : Set(object.keys)
        for (key, inner) in object {
            found.formUnion(fields(of: inner, keyedByName: !keyedByName && objectsKeyedByName.contains(key)))
        }
        return found
    }

    /// The fields of the JSON in `text`, and of a CSV's header if `text` is one.
    static func fields(ofOutput text: String, csv: Bool = false) throws -> Set<String> {
        if csv { return Set(text.split(separator: "\n").first?.split(separator: ",").map(String.init) ?? []) }
        return fields(of: try JSONSerialization.jsonObject(with: Data(text.utf8)))
    }

    @Test("every field render, compare and sweep write, JSON and CSV, is documented in docs/options.md")
    func everyWrittenFieldDocumented() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let view = ["--size", "48x32", "--iterations", "50"]
        let batch = view + ["--strategies", "gcd", "--warmup", "0", "--runs", "1"]
        var written: [String: Set<String>] = [:]
        // Every key is written, null where it has no value (docs/options.md): one run of each shows them all.
        for (name, arguments, files) in [
            ("render", ["render"] + view + ["--json", "-o", "r.png"], [String]()),
            ("compare", ["compare"] + batch + ["--json", "c.json", "--csv", "c.csv"], ["c.json", "c.csv"]),
            (
                "sweep", ["sweep"] + batch + ["--workers", "1,2", "--json", "s.json", "--csv", "s.csv"],
                ["s.json", "s.csv"]
            ),
        ] {
            let result = try MandelProcess.run(arguments, in: folder)
            try #require(result.status == 0, "\(name): \(result.standardError)")
            if files.isEmpty { written[name] = try Self.fields(ofOutput: result.standardOutput) }
            for file in files {
                let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                written[name + " " + file, default: []].formUnion(
                    try Self.fields(ofOutput: text, csv: file.hasSuffix(".csv")))
            }
        }
        // The sweep over workers has its model's fit; a render's report alone over 60 fields.
        #expect(written["sweep s.json"]?.contains("serial_fraction") == true && written["render"]!.count > 60)
        let names = try Self.documentedNames()
        for (output, fields) in written.sorted(by: { $0.key < $1.key }) {
            let undocumented = fields.subtracting(names)
            #expect(undocumented.isEmpty, "\(output) writes, undocumented: \(undocumented.sorted())")
        }
    }

    @Test("every field of mandel serve's JSON routes and /events is documented in docs/options.md")
    func everyServedFieldDocumented() throws {
        let server = try ServeProcess([])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        // A deep tile first: /stats' latencies and /events' figures, its reference orbit's too, have values
        // then, not only nulls whose keys are not walked.
        let tile = "/tile?size=256x256&center=-0.75,0.1&zoom=1e15&iterations=200&window=96,96,64,64"
        #expect(try HTTPConnection.get(tile, port: server.port).status == 200)
        var written: [String: Set<String>] = [:]
        for route in ["/stats", "/config", "/view?size=64x64&iterations=100"] {
            let reply = try HTTPConnection.get(route, port: server.port)
            try #require(reply.status == 200, "\(route): \(reply.status)")
            written[route] = Self.fields(of: try reply.json())
        }
        let connection = try HTTPConnection(port: server.port)
        defer { connection.close() }
        try connection.send(get: "/events")
        let stream = try connection.receive(
            until: Array("\n\n".utf8), occurrences: 2, deadline: 10, waitingFor: "/events")
        let message = String(decoding: stream, as: UTF8.self).components(separatedBy: "\n\n")
            .first { $0.contains("event: stats") }
        let data = try #require(message?.split(separator: "\n").first { $0.hasPrefix("data: ") })
        written["/events"] = try Self.fields(ofOutput: String(data.dropFirst(6)))
        #expect(written["/stats"]!.contains("render_seconds") && written["/events"]!.contains("orbit_seconds"))
        let names = try Self.documentedNames()
        for (route, fields) in written.sorted(by: { $0.key < $1.key }) {
            let undocumented = fields.subtracting(names)
            #expect(undocumented.isEmpty, "\(route) writes, undocumented: \(undocumented.sorted())")
        }
    }
}
