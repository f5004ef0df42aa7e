import Platform

/// Preallocated per-tile records for one band slot, which workers fill in without locks.
///
/// Slot i is written once per band, by the one worker that rendered that
/// band's tile i, and read only after every tile of the band has finished
/// (the band's countdown orders the reads after the writes) or after the
/// strategy's completion.
final class TileRecorder: @unchecked Sendable {
    // @unchecked: the columns are raw memory written as described above; a slot
    // is reset only by the band pipeline, before the band that reuses it may start.
    private let workers: UnsafeMutableBufferPointer<Int32>
    private let starts: UnsafeMutableBufferPointer<UInt64>
    private let ends: UnsafeMutableBufferPointer<UInt64>
    private let iterations: UnsafeMutableBufferPointer<UInt64>

    /// Bytes per tile.
    static let bytesPerTile = 4 + 8 + 8 + 8

    init(capacity: Int) throws(RenderFailure) {
        workers = try FallibleAllocation.zeroed(Int32.self, count: capacity, for: "the tile records")
        starts = try FallibleAllocation.zeroed(UInt64.self, count: capacity, for: "the tile records")
        ends = try FallibleAllocation.zeroed(UInt64.self, count: capacity, for: "the tile records")
        iterations = try FallibleAllocation.zeroed(UInt64.self, count: capacity, for: "the tile records")
        reset(count: capacity)
    }

    deinit {
        FallibleAllocation.release(workers)
        FallibleAllocation.release(starts)
        FallibleAllocation.release(ends)
        FallibleAllocation.release(iterations)
    }

    /// Marks the first `count` slots as not rendered.
    func reset(count: Int) {
        workers.baseAddress!.update(repeating: -1, count: count)
        iterations.baseAddress!.update(repeating: 0, count: count)
    }

    func record(slot: Int, worker: Int, start: UInt64, end: UInt64, iterations count: UInt64) {
        workers[slot] = Int32(truncatingIfNeeded: worker)
        starts[slot] = start
        ends[slot] = end
        iterations[slot] = count
    }

    /// Slot `slot` as a record of `rect`, with times in seconds since `origin` (monotonic nanoseconds).
    func record(at slot: Int, rect: PixelRect, since origin: UInt64) -> TileRecord {
        let finished = workers[slot] >= 0
        return TileRecord(
            rect: rect,
            worker: finished ? Int(workers[slot]) : nil,
            start: finished ? Double(Int64(bitPattern: starts[slot] &- origin)) / 1e9 : 0,
            end: finished ? Double(Int64(bitPattern: ends[slot] &- origin)) / 1e9 : 0,
            iterations: iterations[slot])
    }
}
