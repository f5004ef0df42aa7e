/// Preallocated per-tile records that workers fill in without locks.
///
/// Each tile index is written once, by the one worker that rendered it, and
/// read only after the render has completed.
final class TileRecorder: @unchecked Sendable {
    // @unchecked: the columns are raw memory. Slot i is written only by the
    // worker rendering tile i (a plan hands each tile to exactly one worker),
    // and read only after the strategy's completion, which happens after
    // every worker's last write.
    private let workers: UnsafeMutableBufferPointer<Int32>
    private let starts: UnsafeMutableBufferPointer<UInt64>
    private let ends: UnsafeMutableBufferPointer<UInt64>
    private let iterations: UnsafeMutableBufferPointer<UInt64>

    init(tileCount: Int) {
        workers = .allocate(capacity: tileCount)
        workers.initialize(repeating: -1)
        starts = .allocate(capacity: tileCount)
        starts.initialize(repeating: 0)
        ends = .allocate(capacity: tileCount)
        ends.initialize(repeating: 0)
        iterations = .allocate(capacity: tileCount)
        iterations.initialize(repeating: 0)
    }

    deinit {
        workers.deallocate()
        starts.deallocate()
        ends.deallocate()
        iterations.deallocate()
    }

    func record(tile: Int, worker: Int, start: UInt64, end: UInt64, iterations count: UInt64) {
        workers[tile] = Int32(worker)
        starts[tile] = start
        ends[tile] = end
        iterations[tile] = count
    }

    /// The records, with times in seconds since `origin` (nanoseconds on the monotonic clock).
    func records(of tiles: [PixelRect], since origin: UInt64) -> [TileRecord] {
        tiles.indices.map { index in
            let finished = workers[index] >= 0
            return TileRecord(
                rect: tiles[index],
                worker: finished ? Int(workers[index]) : nil,
                start: finished ? Double(Int64(bitPattern: starts[index] &- origin)) / 1e9 : 0,
                end: finished ? Double(Int64(bitPattern: ends[index] &- origin)) / 1e9 : 0,
                iterations: iterations[index])
        }
    }
}
