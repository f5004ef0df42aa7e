import Foundation
import Hummingbird
import HummingbirdTesting
import MandelServer
import Testing

@Suite("Explorer's page routes")
struct PageRouteTests {
    @Test("the page and its files are served at fixed paths, and nothing else is")
    func pageFiles() async throws {
        let server = try ExplorerServer(settings: ExplorerServer.Settings())
        let app = Application(router: server.router())
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(String(buffer: page.body).contains("<html"))
            for path in ["/page/app.js", "/page/decimal.js", "/page/style.css"] {
                let file = try await client.execute(uri: path, method: .get)
                #expect(file.status == .ok, "\(path)")
                #expect(file.body.readableBytes > 100, "\(path)")
            }
            for path in ["/page/../Package.swift", "/page/", "/index.html", "/page/app.js.map"] {
                let missing = try await client.execute(uri: path, method: .get)
                #expect(missing.status == .notFound, "\(path)")
            }
        }
    }
}
