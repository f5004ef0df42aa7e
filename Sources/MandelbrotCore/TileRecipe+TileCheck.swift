// A tile request comes from another process: before anything is allocated for it, its rectangle
// is checked against the recipe's picture and the memory it takes is counted, with arithmetic that
// cannot overflow, so that a request for a tile of 2^32 pixels is refused instead of allocated.

extension TileRecipe {
    /// The picture's height in pixels.
    var pictureHeight: Int { samples.grid.size.height / supersampling }

    /// Throws unless `rect` is a tile of the picture: not empty, and inside it.
    package func checkInside(_ rect: PixelRect) throws(WireReader.Malformed) {
        // Subtractions, not rect.maxX: nothing here can overflow whatever the rectangle's numbers.
        guard rect.width > 0, rect.height > 0, rect.x <= pictureWidth - rect.width,
            rect.y <= pictureHeight - rect.height
        else { throw .init("tile \(rect) lies outside the \(pictureWidth)x\(pictureHeight) picture") }
    }

    /// The bytes rendering `rect` takes beside what `workspace` holds already: a taller canvas (and
    /// its escape counts) when the workspace's is too short, the result, and the frame it goes in.
    /// `rect` must have passed ``checkInside(_:)``, which bounds every product here below 2^62.
    package func bytesNeeded(for rect: PixelRect, workspace: Workspace) -> Int {
        var canvas = 0
        if kind != .counting, !workspace.fits(self, rect) {
            canvas = format.bytesPerRow(width: pictureWidth) * rect.height
            if keepsCounts { canvas += pictureWidth * rect.height * 4 }
        }
        // The result is built in one array and copied into the frame that carries it.
        return canvas + 2 * resultBytes(for: rect)
    }
}

extension TileRecipe.Workspace {
    /// Whether the canvas (and counts) can take `rect` of `recipe`'s picture: as wide as the picture,
    /// at least as tall as the tile, of its pixel format, with counts where it keeps them. A helper
    /// kept from one pass to the next renders the next pass's recipe with the same workspace.
    func fits(_ recipe: TileRecipe, _ rect: PixelRect) -> Bool {
        guard let canvas else { return false }
        return canvas.size.width == recipe.pictureWidth && canvas.size.height >= rect.height
            && canvas.format == recipe.format && (counts != nil) == recipe.keepsCounts
    }
}
