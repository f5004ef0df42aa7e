import Foundation
public import MandelbrotCore

/// The picture drawn faintly, each tile tinted by the worker that rendered it, with a legend.
///
/// With `--split bands` on 2 workers it shows at once that one band held most of the set.
public enum OwnershipMap {
    /// Draws the map of a finished render.
    ///
    /// - Parameters:
    ///   - canvas: The rendered picture (gray or RGB).
    ///   - report: The render's records.
    ///   - title: A line drawn above the legend, such as the strategy and split.
    public static func draw(canvas: PixelBuffer, report: RenderReport, title: String) -> RGBPicture {
        let scale = canvas.size.width >= 600 ? 2 : 1
        let lineHeight = (BitmapFont.glyphHeight + 3) * scale
        let busy = report.workerBusySeconds
        let tilesPerWorker = busy.indices.map { worker in report.tiles.filter { $0.worker == worker }.count }
        let totalBusy = max(busy.reduce(0, +), 1e-12)
        var lines = [title]
        for worker in busy.indices {
            lines.append(
                String(
                    format: "worker %d: %d tiles, %.3f s busy (%.0f%%)", worker, tilesPerWorker[worker],
                    busy[worker], busy[worker] / totalBusy * 100))
        }
        let legendWidth = (lines.map { BitmapFont.width(of: $0, scale: scale) }.max() ?? 0) + lineHeight * 2 + 8
        let width = max(canvas.size.width, legendWidth)
        let legendHeight = lineHeight * lines.count + 8
        var picture = RGBPicture(width: width, height: canvas.size.height + legendHeight, color: RGB(255, 255, 255))

        // The fractal, faint: its luminance pulled towards white.
        canvas.withBytes { bytes in
            for y in 0..<canvas.size.height {
                for x in 0..<canvas.size.width {
                    let row = y * canvas.bytesPerRow
                    let index = row + x * canvas.channels
                    let luminance =
                        switch canvas.format {
                        case .bilevel: bytes[row + x / 8] & (0x80 >> UInt8(x % 8)) != 0 ? 0.0 : 255.0
                        case .gray: Double(bytes[index])
                        case .rgb:
                            0.2126 * Double(bytes[index]) + 0.7152 * Double(bytes[index + 1]) + 0.0722
                                * Double(bytes[index + 2])
                        }
                    let faint = UInt8(255 - (255 - luminance) * 0.45)
                    picture[x, y] = RGB(faint, faint, faint)
                }
            }
        }
        // Each finished tile tinted by its worker, with a darker outline.
        for tile in report.tiles {
            guard let worker = tile.worker else { continue }
            let color = WorkerPalette.color(for: worker)
            let edge = RGB(color.red / 2, color.green / 2, color.blue / 2)
            for y in tile.rect.y..<tile.rect.maxY {
                for x in tile.rect.x..<tile.rect.maxX {
                    let onEdge = x == tile.rect.x || y == tile.rect.y
                    picture[x, y] =
                        onEdge && tile.rect.width > 2 && tile.rect.height > 2
                        ? edge : color.blended(over: picture[x, y], amount: 0.5)
                }
            }
        }
        // The legend: a title, then one swatch and line per worker.
        let top = canvas.size.height + 4
        BitmapFont.draw(lines[0], x: 4, y: top, scale: scale, color: RGB(0, 0, 0), into: &picture)
        for worker in busy.indices {
            let y = top + lineHeight * (worker + 1)
            picture.fill(
                x: 4, y: y, width: lineHeight - 2 * scale, height: BitmapFont.glyphHeight * scale,
                color: WorkerPalette.color(for: worker))
            BitmapFont.draw(
                lines[worker + 1], x: 4 + lineHeight, y: y, scale: scale, color: RGB(0, 0, 0), into: &picture)
        }
        return picture
    }
}
