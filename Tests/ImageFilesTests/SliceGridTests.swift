import ImageFiles
import Testing

/// The slices a picture's PNG is cut into, which parts are made of.
@Suite("Slice grid")
struct SliceGridTests {
    @Test("a picture of at least 16 rows has at least 16 slices, whatever its height and row size")
    func atLeastSixteenSlices() {
        var short: [String] = []
        for bytesPerRow in [1, 38, 3 * 64, 3 * 1200, 1 << 16, 1 << 20] {
            for height in 16...5000 {
                let grid = SliceGrid(height: height, bytesPerRow: bytesPerRow)
                if grid.sliceCount < SliceGrid.minimumSlices { short.append("\(height) rows of \(bytesPerRow)") }
                // Every row is in exactly one slice: the last slice ends at the picture's end.
                #expect(grid.rows(of: 0..<grid.sliceCount) == 0..<height)
            }
        }
        #expect(short.isEmpty, "fewer than 16 slices: \(short.prefix(10)) (\(short.count) in all)")
    }

    @Test("slices stay about 256 KiB where the minimum does not bind")
    func sliceSize() {
        let grid = SliceGrid(height: 10000, bytesPerRow: 3 * 4000)
        #expect(grid.sliceRows == PNGWriter.defaultSliceBytes / (3 * 4000))
        #expect(SliceGrid(height: 15, bytesPerRow: 3).sliceRows == 1)
    }
}
