import PNGShim

/// Where a PNG's compressed slices begin and end: whole rows, chosen from the picture alone.
///
/// A slice is about ``PNGWriter/defaultSliceBytes`` of pixels, and a picture of at least
/// ``minimumSlices`` rows has at least that many slices, so that even a small picture can be
/// cut into parts. The grid never depends on the workers, the bands or the parts, so every
/// way of writing a picture gives the same bytes, and a part is a run of whole slices.
public struct SliceGrid: Sendable, Equatable {
    /// Rows in the picture.
    public let height: Int
    /// Bytes in one row of pixels.
    public let bytesPerRow: Int
    /// Rows per slice (the last slice may have fewer).
    public let sliceRows: Int

    /// The fewest slices of a picture with at least as many rows.
    public static let minimumSlices = 16

    /// The grid of a picture of `height` rows of `bytesPerRow` bytes, in slices of about `sliceBytes`.
    public init(height: Int, bytesPerRow: Int, sliceBytes: Int = PNGWriter.defaultSliceBytes) {
        precondition(height > 0 && bytesPerRow > 0 && sliceBytes > 0, "a picture and a slice have a size")
        self.height = height
        self.bytesPerRow = bytesPerRow
        // Rounded down: h / ⌊h/16⌋ ≥ 16 slices (rounded up, 17 rows made 9 slices of 2).
        let rowsForMinimum = height / Self.minimumSlices
        sliceRows = max(1, min(sliceBytes / bytesPerRow, rowsForMinimum))
    }

    /// How many slices the picture has.
    public var sliceCount: Int { (height + sliceRows - 1) / sliceRows }

    /// The rows a slice's dictionary needs before it: enough to fill the 32 KiB window, at least one.
    public var windowRows: Int { (Int(MANDEL_DEFLATE_WINDOW) + bytesPerRow) / (bytesPerRow + 1) }

    /// The slices of part `index` of `count`: as even a share of the slices as whole slices allow.
    /// Traps unless `0 ≤ index < count ≤ sliceCount`.
    public func slices(ofPart index: Int, of count: Int) -> Range<Int> {
        precondition(count >= 1 && count <= sliceCount && (0..<count).contains(index), "no such part")
        return index * sliceCount / count..<(index + 1) * sliceCount / count
    }

    /// The rows of `slices`.
    public func rows(of slices: Range<Int>) -> Range<Int> {
        slices.lowerBound * sliceRows..<min(slices.upperBound * sliceRows, height)
    }

    /// The rows a part's writer needs: its slices' rows, after the rows its first slice's
    /// dictionary is made of.
    public func rowsRendered(for slices: Range<Int>) -> Range<Int> {
        let rows = rows(of: slices)
        return max(0, rows.lowerBound - windowRows)..<rows.upperBound
    }
}
