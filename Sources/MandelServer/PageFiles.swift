import Foundation

/// The page's files, read once from the module's resources: the only files the server sends,
/// each at a fixed path (no path of a request ever reaches the file system).
struct PageFiles: Sendable {
    struct File: Sendable {
        let bytes: Data
        let contentType: String
    }

    /// The files by the path they are served at.
    let byPath: [String: File]

    /// The page's files, and where each is served.
    static let served: [(path: String, resource: String, contentType: String)] = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/page/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/page/decimal.js", "decimal.js", "text/javascript; charset=utf-8"),
        ("/page/style.css", "style.css", "text/css; charset=utf-8"),
    ]

    /// Reads every file; throws if one is missing from the build.
    static func load() throws -> PageFiles {
        guard let folder = Bundle.module.url(forResource: "Page", withExtension: nil) else {
            throw Missing(name: "Page")
        }
        var files: [String: File] = [:]
        for (path, resource, contentType) in served {
            let url = folder.appendingPathComponent(resource)
            guard let bytes = try? Data(contentsOf: url) else { throw Missing(name: "Page/" + resource) }
            files[path] = File(bytes: bytes, contentType: contentType)
        }
        return PageFiles(byPath: files)
    }

    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "the page's file \(name) is missing from this build of mandel" }
    }
}
