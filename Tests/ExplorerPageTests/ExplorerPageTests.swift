import Foundation
import Testing

/// The explorer's page in a real browser: the real `mandel serve`, and a headless chromium driven
/// over WebDriver (chromedriver) at a 1280×800 viewport, with the page's test hooks
/// (`window.mandelPage`, `window.mandelDecimal`).
///
/// One test at a time: each starts its own server and browser, and the cancellation test measures
/// processor time, which a second browser on a 2-core machine would share.
@Suite("Explorer page in a browser", .serialized, .timeLimit(.minutes(10)))
struct ExplorerPageTests {
    /// The package's root folder, for its data and its `docs/results`.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
}

/// A row of Benchmarks/deep-locations.tsv: a deep view's centre and mandel's zoom, as stored.
struct DeepLocation {
    let name: String
    let re: String
    let im: String
    let zoom: String

    /// The row called `name`.
    static func named(_ name: String) throws -> DeepLocation {
        let path = ExplorerPageTests.packageRoot + "/Benchmarks/deep-locations.tsv"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t").map(String.init)
            if fields.count >= 5 && fields[0] == name {
                return DeepLocation(name: name, re: fields[1], im: fields[2], zoom: fields[4])
            }
        }
        throw ExplorerFailure(description: "\(path) has no row \(name)")
    }
}
