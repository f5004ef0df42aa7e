import Foundation
import ImageFiles
import Testing

extension ExplorerPageTests {
    /// Where the README's picture of the page is written when `MANDEL_SAVE_SCREENSHOTS=1`.
    static let savedScreenshot = "docs/results/explore/explorer.png"

    /// How far the controls' shadows reach past their boxes, in CSS pixels: the bar's box-shadow is
    /// 0 2px 12px (14 px below it, 12 px beside it), the hint's text-shadow 0 1px 2px.
    static let overlayMargin = 16.0

    @Test("the page fills a true 1280x800 viewport, and its screenshot is the tiles' own pixels")
    func screenshotIsTheTiles() async throws {
        try await Explorer.with { explorer in
            try await explorer.open()
            try await explorer.waitUntilFilled()
            let view = try await explorer.view()
            #expect(view.size == "1280x800")
            let ratio: Double = try await explorer.browser.execute("return window.devicePixelRatio")
            #expect(ratio == 1, "one CSS pixel must be one screenshot pixel")

            let png = try await explorer.browser.screenshot()
            let path = NSTemporaryDirectory() + "mandel-explorer-\(UUID().uuidString).png"
            try png.write(to: URL(fileURLWithPath: path))
            print("ExplorerPageTests: the page's screenshot is \(path)")
            if ProcessInfo.processInfo.environment["MANDEL_SAVE_SCREENSHOTS"] == "1" {
                let saved = URL(fileURLWithPath: Self.packageRoot + "/" + Self.savedScreenshot)
                try FileManager.default.createDirectory(
                    at: saved.deletingLastPathComponent(), withIntermediateDirectories: true)
                try png.write(to: saved)
                print("ExplorerPageTests: saved the screenshot as \(saved.path)")
            }
            let screen = try PNGImage(contentsOf: path)
            let (width, height) = Explorer.viewport
            try #require(
                screen.width == width && screen.height == height,
                "the screenshot is \(screen.width)x\(screen.height), not the viewport's \(width)x\(height)")

            // Whatever the page shows over the tiles (the controls, the live panel, the status line,
            // the hint: every element beside the view) is left out, its box grown by its shadow.
            let boxes: [[Double]] = try await explorer.browser.execute(
                """
                return [...document.body.children]
                  .filter((element) => element.id !== "view" && element.tagName !== "SCRIPT")
                  .map((element) => element.getBoundingClientRect())
                  .filter((box) => box.width > 0 && box.height > 0)
                  .map((box) => [box.left, box.top, box.right, box.bottom]);
                """)
            let margin = Self.overlayMargin
            func underControls(_ x: Int, _ y: Int) -> Bool {
                boxes.contains { box in
                    Double(x) >= box[0] - margin && Double(x) < box[2] + margin && Double(y) >= box[1] - margin
                        && Double(y) < box[3] + margin
                }
            }

            // Every loaded tile, fetched by the test from the server, against the screenshot where
            // the page placed it: at its window's corner less the viewport's offset.
            let tiles = try await explorer.tiles().filter { $0.state == "loaded" }
            let folder = NSTemporaryDirectory() + "mandel-explorer-tiles-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var covered = [Bool](repeating: false, count: width * height)
            var compared = 0
            var differing = 0
            var examples: [String] = []
            var largest = 0
            for (number, tile) in tiles.enumerated() {
                let answer = try await explorer.get(tile.url)
                try #require(answer.status == 200, "\(tile.url): status \(answer.status)")
                let file = folder + "/\(number).png"
                try answer.body.write(to: URL(fileURLWithPath: file))
                let image = try PNGImage(contentsOf: file)
                let window = tile.rectangle
                #expect(image.width == window.width && image.height == window.height, "\(tile.window)")
                for row in 0..<image.height {
                    let y = window.y + row - view.offset[1]
                    guard (0..<height).contains(y) else { continue }
                    for column in 0..<image.width {
                        let x = window.x + column - view.offset[0]
                        guard (0..<width).contains(x) else { continue }
                        covered[y * width + x] = true
                        if underControls(x, y) { continue }
                        compared += 1
                        let difference = (0..<3).map {
                            abs(Int(image.sample(column, row, $0)) - Int(screen.sample(x, y, $0)))
                        }.max()!
                        guard difference > 0 else { continue }
                        differing += 1
                        largest = max(largest, difference)
                        if examples.count < 5 {
                            examples.append("(\(x), \(y)) differs by \(difference)")
                        }
                    }
                }
            }
            let uncovered = covered.count(where: { !$0 })
            #expect(uncovered == 0, "\(uncovered) viewport pixels lie in no loaded tile")
            // Exact: at device pixel ratio 1 each tile is drawn at its own size on whole pixels (the
            // page snaps its translations), from an untagged PNG, which Chromium takes as sRGB, the
            // screenshot's space: nothing resamples or converts a pixel.
            #expect(
                differing == 0,
                """
                \(differing) of \(compared) pixels differ from their tile's (by up to \(largest) of 255): \
                \(examples.joined(separator: "; "))
                """)
            #expect(compared >= width * height / 2, "only \(compared) pixels lie outside the controls")
            print(
                "ExplorerPageTests: \(tiles.count) tiles, \(compared) of \(width * height) viewport pixels compared "
                    + "(the rest under the controls), \(differing) differ")
        }
    }
}

extension PNGImage {
    /// Sample `channel` (0 red, 1 green, 2 blue) of the pixel at (`x`, `y`); a gray pixel's one sample for each.
    func sample(_ x: Int, _ y: Int, _ channel: Int) -> UInt8 {
        pixels[(y * width + x) * channels + (channels >= 3 ? channel : 0)]
    }
}
