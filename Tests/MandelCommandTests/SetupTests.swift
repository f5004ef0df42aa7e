import Foundation
import Testing

/// The README's set-up is the whole set-up: every package `scripts/test` checks for is on the README's
/// install line, so that a new user who follows the README can run the suite.
@Suite("Set-up")
struct SetupTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test("every package scripts/test checks for is on the README's install line, and it checks for some")
    func installLineIsWhole() throws {
        let script = try String(contentsOfFile: Self.root + "/scripts/test", encoding: .utf8)
        // "missing+=(libpng-dev)": the packages the script checks for.
        let checked = script.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "missing+=("), let end = line[start.upperBound...].firstIndex(of: ")")
            else { return nil }
            return String(line[start.upperBound..<end])
        }
        #expect(checked.count >= 8, "scripts/test checks for \(checked)")
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let install = readme.split(separator: "\n").first { $0.contains("apt-get install") } ?? ""
        let packages = Set(install.split(separator: "#")[0].split(separator: " ").map(String.init))
        for package in checked {
            #expect(packages.contains(package), "scripts/test needs \(package); the README's line is '\(install)'")
        }
    }
}
