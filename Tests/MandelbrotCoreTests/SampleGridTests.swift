import MandelbrotCore
import Testing

@Suite("SampleGrid")
struct SampleGridTests {
    @Test("an even-sized image samples pixel centres either side of the centre")
    func evenSize() {
        // 4×2 at zoom 1: s = 3 / 2 = 1.5.
        let grid = SampleGrid(
            size: ImageSize(width: 4, height: 2), viewport: Viewport(centerReal: 0, centerImaginary: 0, zoom: 1))
        #expect(grid.realParts == [-2.25, -0.75, 0.75, 2.25])
        #expect(Array(grid.imaginaryParts) == [0.75, -0.75])
    }

    @Test("an odd-sized image puts its middle pixel exactly on the centre")
    func oddSize() {
        let viewport = Viewport(centerReal: -0.5, centerImaginary: 0.25, zoom: 2)
        let grid = SampleGrid(size: ImageSize(width: 5, height: 3), viewport: viewport)
        let spacing = 3 / (2 * 3.0)
        #expect(grid.realParts[2] == -0.5)
        #expect(grid.imaginaryParts[1] == 0.25)
        #expect(grid.realParts[0] == -0.5 + (0.5 - 2.5) * spacing)
        #expect(grid.realParts[4] == -0.5 + (4.5 - 2.5) * spacing)
        #expect(grid.imaginaryParts[0] == 0.25 - (0.5 - 1.5) * spacing, "row 0 is the top: larger imaginary part")
    }

    @Test("the shorter side spans 3 units at zoom 1, whichever side it is")
    func shorterSide() {
        let wide = SampleGrid(size: ImageSize(width: 300, height: 100), viewport: .whole)
        let tall = SampleGrid(size: ImageSize(width: 100, height: 300), viewport: .whole)
        #expect(abs((wide.imaginaryParts.first! - wide.imaginaryParts.last!) - 3 * 99 / 100) < 1e-12)
        #expect(abs((tall.realParts.last! - tall.realParts.first!) - 3 * 99 / 100) < 1e-12)
    }

    @Test("the Benchmarks Game grid samples pixel corners from (−1.5, −1)")
    func benchmarksGame() {
        let grid = SampleGrid(benchmarksGameSide: 8)
        #expect(grid.realParts.first == -1.5)
        #expect(grid.realParts[4] == -0.5)
        #expect(grid.imaginaryParts.first == -1)
        #expect(grid.imaginaryParts[4] == 0)
    }
}

@Suite("SampleGrid for tall pictures")
struct TallSampleGridTests {
    @Test("a two-billion-row grid needs no table: every row is computed, exactly as a small grid's")
    func tallGrid() {
        let viewport = Viewport(centerReal: -0.5, centerImaginary: 0.1, zoom: 3)
        let size = ImageSize(width: 3, height: 2_000_000_000)
        let grid = SampleGrid(size: size, viewport: viewport)
        #expect(grid.imaginaryParts.count == 2_000_000_000)
        let spacing = viewport.pixelSpacing(for: size)
        for y in [0, 1, 999_999_999, 1_999_999_999] {
            #expect(grid.imaginaryParts[y] == 0.1 - (Double(y) + 0.5 - 1_000_000_000) * spacing)
        }
    }
}
