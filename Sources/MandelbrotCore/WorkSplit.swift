/// How a render's pixels are divided among the workers.
public enum WorkSplit: String, Sendable, CaseIterable {
    /// One contiguous block of rows per worker: the naive static split, which
    /// leaves the workers whose band holds more of the set working longest.
    case bands
    /// Rows dealt out in turn (row r to worker r mod N): static, but each worker sees every part of the image.
    case rows
    /// A dynamic queue of tiles: whichever worker is free takes the next tile.
    case tiles
}
