import ImageFiles
import MandelOptions
import MandelServer
import Testing

/// The views a server keeps for their tiles (``ViewCache``), by the arguments they were read from.
@Suite("Views kept for their tiles")
struct ViewCacheTests {
    /// A server's own tiles all take its one `--compression`, so a key without the compression
    /// served every tile of the tests right: the cache is keyed by everything a view was read
    /// with, and one read with another compression must not be taken for it.
    @Test("a view kept for its tiles is kept with its compression: a tile asked with another gets its own")
    func compressionIsPartOfTheKey() throws {
        let cache = ViewCache()
        let settings = ExplorerServer.Settings()
        let query = [("size", "512x512"), ("zoom", "2"), ("iterations", "64"), ("window", "0,0,64,64")]
        for compression in [PNGCompression.small, .fast, nil, .small, .balanced, nil] {
            let tile = try ViewRequest(
                query: query.map { (key: $0.0, value: $0.1) }, needsWindow: true, limits: settings.limits,
                work: settings.work, compression: compression, views: cache)
            #expect(tile.outputs.compression == compression, "asked \(compression?.rawValue ?? "none")")
            let named = tile.arguments.firstIndex(of: "--compression").map { tile.arguments[$0 + 1] }
            #expect(named == compression?.rawValue, "\(tile.command)")
        }
    }
}
