import Foundation

/// The page's files, built into the program (the EmbedPage plugin makes them a Swift file from
/// `Sources/MandelServer/Page`): the only files the server sends, each at a fixed path, so that
/// no path of a request ever reaches the file system, and the page is there wherever `mandel` is
/// copied.
struct PageFiles: Sendable {
    struct File: Sendable {
        let bytes: Data
        let contentType: String
    }

    /// The files by the path they are served at.
    let byPath: [String: File]

    /// The page's files, and where each is served.
    static let served: [(path: String, name: String, contentType: String)] = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/page/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/page/decimal.js", "decimal.js", "text/javascript; charset=utf-8"),
        ("/page/style.css", "style.css", "text/css; charset=utf-8"),
    ]

    /// Decodes every file; throws if one is missing from the build.
    static func load() throws -> PageFiles {
        var files: [String: File] = [:]
        for (path, name, contentType) in served {
            guard let text = EmbeddedPage.files[name], let bytes = Data(base64Encoded: text) else {
                throw Missing(name: "Page/" + name)
            }
            files[path] = File(bytes: bytes, contentType: contentType)
        }
        return PageFiles(byPath: files)
    }

    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "the page's file \(name) is missing from this build of mandel" }
    }
}
