import Deadline
import Foundation
import Testing

@testable import MandelbrotCore

/// A picture's pixels, row by row, as bytes.
private func bytes(of picture: PixelBuffer) -> [UInt8] { picture.withBytes { Array($0) } }

/// The rows `y..<y+height`, columns `x..<x+width` of `picture`'s bytes.
private func crop(_ picture: PixelBuffer, x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
    let pixel = picture.format.bytesPerRow(width: 1)
    let row = picture.format.bytesPerRow(width: picture.size.width)
    let all = bytes(of: picture)
    var cropped: [UInt8] = []
    for line in y..<(y + height) {
        let start = line * row + x * pixel
        cropped += all[start..<(start + width * pixel)]
    }
    return cropped
}

private func rendered(_ job: RenderJob, store: DeepReferenceStore? = nil) async throws -> PixelBuffer {
    try await withDeadline(waitingFor: "a render of \(job.size)") {
        let render = try PictureRender(job: job)
        _ = try await render.run(SerialStrategy(), references: store)
        return render.canvas!
    }
}

@Suite("Windows of a picture and the deep references they share")
struct PictureWindowTests {
    /// A deep view at "1e50", modest: 96×64 pixels, 2,000 iterations.
    static func deepPicture() throws -> RenderJob {
        let location = try DeepLocations.named("1e50")
        var job = RenderJob(
            size: ImageSize(width: 96, height: 64), region: .view(location.view.approximateViewport),
            iterations: 2000, workers: 2)
        job.deep = location.view
        return job
    }

    @Test(
        "a window inside the picture is the picture's pixels, in Double and by perturbation",
        arguments: [false, true])
    func windowInside(deep: Bool) async throws {
        var picture = RenderJob(
            size: ImageSize(width: 96, height: 64),
            region: .view(Viewport(centerReal: -0.7, centerImaginary: 0.2, zoom: 3)),
            workers: 2)
        if deep { picture = try Self.deepPicture() }
        let whole = try await rendered(picture)
        for (x, y, width, height) in [(0, 0, 96, 64), (10, 7, 33, 20), (60, 40, 36, 24), (95, 63, 1, 1)] {
            let window = try await rendered(picture.window(x: x, y: y, size: ImageSize(width: width, height: height)))
            #expect(
                bytes(of: window) == crop(whole, x: x, y: y, width: width, height: height),
                "window \(x),\(y),\(width),\(height)")
        }
    }

    @Test("the grid goes on past the picture's edges, by the pixel convention's own expression")
    func gridBeyondTheEdges() {
        let view = Viewport(centerReal: -0.5, centerImaginary: 0.25, zoom: 2)
        let picture = RenderJob(size: ImageSize(width: 300, height: 200), region: .view(view))
        let spacing = view.pixelSpacing(for: picture.size)
        for (x, y) in [(-1000, -700), (-3, 5), (299, 199), (300, 200), (12345, -54321)] {
            let grid = picture.window(x: x, y: y, size: ImageSize(width: 4, height: 3)).makeSampleGrid()
            for column in 0..<4 {
                #expect(grid.realParts[column] == -0.5 + (Double(x + column) + 0.5 - 150) * spacing)
            }
            for row in 0..<3 {
                #expect(grid.imaginaryParts[row] == 0.25 - (Double(y + row) + 0.5 - 100) * spacing)
            }
        }
    }

    /// Supersampled too: a window's pixels are k samples each, so its offset in the grid of samples
    /// is k times its offset in pixels (the reach of a window beyond a picture of 2 or 3 samples a
    /// pixel was placed from its pixels, and fell short, with every test at 1).
    @Test(
        "a window takes the picture's precision, and its reach doubles only beyond the picture, at every supersampling",
        arguments: [1, 2, 3])
    func deepReach(supersampling: Int) throws {
        var picture = try Self.deepPicture()
        picture.supersampling = supersampling
        let whole = picture.deepReach
        let inside = picture.window(x: 10, y: 10, size: ImageSize(width: 8, height: 8)).deepReach
        #expect(inside.pictureSamples == whole.pictureSamples)
        #expect(inside.farthestOffset == whole.farthestOffset)
        let part = picture.rows(3..<9).deepReach
        #expect(part.pictureSamples == whole.pictureSamples && part.farthestOffset == whole.farthestOffset)
        let near = picture.window(x: 96, y: 0, size: ImageSize(width: 16, height: 16)).deepReach
        #expect(near.farthestOffset == 2 * whole.farthestOffset)
        let far = picture.window(x: -1000, y: 0, size: ImageSize(width: 16, height: 16)).deepReach
        let ratio = far.farthestOffset / whole.farthestOffset
        #expect(ratio >= 16 && ratio <= 32 && ratio == ratio.rounded() && Int(ratio).nonzeroBitCount == 1)
    }

    @Test("renders that share a kept reference make the pixels they would have made alone")
    func sharedReference() async throws {
        let picture = try Self.deepPicture()
        let store = DeepReferenceStore(capacity: 2)
        let windows = [(0, 0), (48, 0), (0, 32), (48, 32)].map {
            picture.window(x: $0.0, y: $0.1, size: ImageSize(width: 48, height: 32))
        }
        for window in windows {
            let shared = try await rendered(window, store: store)
            let alone = try await rendered(window)
            #expect(bytes(of: shared) == bytes(of: alone))
        }
        #expect(store.reuse.computed == 1 && store.reuse.found == 3)
        // Beyond the picture: another reach, another reference.
        _ = try await rendered(picture.window(x: 96, y: 0, size: ImageSize(width: 16, height: 16)), store: store)
        #expect(store.reuse.computed == 2 && store.count == 2)
        // The first key used again: now the second is the least recently used, though the first is the oldest.
        _ = try await rendered(windows[1], store: store)
        #expect(store.reuse.computed == 2 && store.reuse.found == 4)
        // A third key evicts the least recently used one: the reach beyond the picture, not the first.
        var other = picture
        other.iterations = 1000
        _ = try await rendered(other, store: store)
        #expect(store.reuse.computed == 3 && store.count == 2)
        _ = try await rendered(windows[0], store: store)
        #expect(store.reuse.computed == 3 && store.reuse.found == 5, "the recently used first reference was dropped")
        _ = try await rendered(picture.window(x: 96, y: 0, size: ImageSize(width: 16, height: 16)), store: store)
        #expect(store.reuse.computed == 4, "the least recently used reference was kept")
    }

    @Test("a store over its memory budget keeps only the newest reference")
    func budget() async throws {
        let picture = try Self.deepPicture()
        let store = DeepReferenceStore(capacity: 4, budgetBytes: 1)
        _ = try await rendered(picture, store: store)
        var other = picture
        other.iterations = 1500
        _ = try await rendered(other, store: store)
        #expect(store.count == 1)
        _ = try await rendered(other, store: store)
        #expect(store.reuse.found == 1)
    }

    @Test("a cancelled render keeps no reference")
    func cancelledKeepsNothing() async throws {
        let picture = try Self.deepPicture()
        let store = DeepReferenceStore()
        let flag = CancellationFlag()
        flag.cancel()
        await #expect(throws: RenderCancelled.self) {
            let render = try PictureRender(job: picture, cancellation: flag)
            _ = try await render.run(SerialStrategy(), references: store)
        }
        #expect(store.count == 0 && store.reuse.computed == 0)
    }
}
