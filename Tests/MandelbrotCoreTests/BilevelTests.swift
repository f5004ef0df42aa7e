import Deadline
import MandelbrotCore
import Testing

@Suite("Black and white, one bit per pixel")
struct BilevelTests {
    @Test(
        "each bit is set exactly where the count reaches the limit, and padding bits stay 0",
        arguments: IterationKernel.allCases)
    func bitsFollowCounts(kernel: IterationKernel) async throws {
        // Widths around a byte and a 32-pixel group; tiles 5 and 13 wide start inside bytes.
        for width in [1, 7, 8, 9, 31, 33, 45] {
            for tile in [TileSize(width: 5, height: 3), TileSize(width: 13, height: 4), .standardTile] {
                let job = RenderJob(
                    size: ImageSize(width: width, height: 9),
                    region: .view(Viewport(centerReal: -0.7, centerImaginary: 0.2, zoom: 1.1)), iterations: 60,
                    colorScheme: .bw, split: .tiles, tileSize: tile, kernel: kernel)
                let (canvas, _) = try await withDeadline(
                    waitingFor: "serial rendering \(job.size.width)x\(job.size.height)"
                ) {
                    try await PictureRender.render(job, with: SerialStrategy())
                }
                #expect(canvas.format == .bilevel && canvas.bytesPerRow == (width + 7) / 8)
                let grid = SampleGrid.of(job)
                var wrong = 0
                for y in 0..<9 {
                    for x in 0..<width {
                        let inSet =
                            EscapeTime.count(real: grid.realParts[x], imaginary: grid.imaginaryParts[y], limit: 60)
                            == 60
                        if canvas.pixel(x: x, y: y) != [inSet ? 0 : 255] { wrong += 1 }
                    }
                }
                #expect(wrong == 0, "width \(width) tile \(tile)")
                let padding = canvas.withBytes { bytes in
                    (0..<9).map { bytes[$0 * canvas.bytesPerRow + canvas.bytesPerRow - 1] }
                        .map { $0 & UInt8(truncatingIfNeeded: 0xFF >> (width % 8 == 0 ? 8 : width % 8)) }
                }
                #expect(padding.allSatisfy { $0 == 0 }, "width \(width) tile \(tile)")
            }
        }
    }
}
