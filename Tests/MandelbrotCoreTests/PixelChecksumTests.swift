import MandelbrotCore
import Testing

@Suite("Pixel checksum")
struct PixelChecksumTests {
    @Test("fed in pieces, cut anywhere, it equals the whole buffer's checksum")
    func pieces() async throws {
        let job = RenderJob(size: ImageSize(width: 37, height: 23), iterations: 64, colorScheme: .smooth)
        let canvas = try await serialCanvas(job)
        let whole = canvas.checksum
        canvas.withBytes { bytes in
            for cuts in [[1], [7, 8, 9], [3, 5, 1, 100, 2], [bytes.count]] {
                var checksum = PixelChecksum()
                var start = 0
                var index = 0
                while start < bytes.count {
                    let end = min(bytes.count, start + cuts[index % cuts.count])
                    checksum.add(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                    start = end
                    index += 1
                }
                #expect(checksum.value == whole, "cut every \(cuts) bytes")
            }
        }
        var empty = PixelChecksum()
        empty.add(UnsafeBufferPointer(start: nil, count: 0))
        #expect(empty.value == 0xcbf2_9ce4_8422_2325, "nothing hashed is FNV's offset basis")
    }
}
