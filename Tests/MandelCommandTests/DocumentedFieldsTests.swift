import Foundation
import Testing

/// A field that no test reads is a field that can be wrong unnoticed: every name docs/options.md
/// gives a JSON or CSV output (the passages between `<!-- fields … -->` and `<!-- /fields -->`) must be
/// read by some test, as a quoted key or as a property of a decoded type.
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
}
