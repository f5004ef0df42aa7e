import AtomicShim

/// Writes runs of bilevel pixels into a row, eight to a byte, the leftmost in the high bit.
///
/// A tile that starts or ends inside a byte shares that byte with its neighbour,
/// which another worker may be writing at the same moment: such bytes are
/// updated atomically, bit by selected bit. Whole bytes are plain stores.
enum BilevelRow {
    /// Writes `count` (at most 32) pixels from column `column`: pixel i is bit `31 − i` of `bits`, 1 for the set.
    @_transparent
    static func write(_ bits: UInt32, count: Int, into row: UnsafeMutablePointer<UInt8>, column: Int) {
        if count == 32 && column % 8 == 0 {
            UnsafeMutableRawPointer(row + column / 8).storeBytes(of: bits.bigEndian, as: UInt32.self)
            return
        }
        // A whole group of the 256-bit kernel (16 pixels).
        if count == 16 && column % 8 == 0 {
            UnsafeMutableRawPointer(row + column / 8).storeBytes(of: UInt16(bits >> 16).bigEndian, as: UInt16.self)
            return
        }
        var pixel = 0
        while pixel < count {
            let x = column + pixel
            let offset = x % 8
            let taken = min(8 - offset, count - pixel)
            // The run's next `taken` bits, placed at `offset` in their byte.
            let run = UInt8(truncatingIfNeeded: (bits << UInt32(pixel)) >> 24) >> UInt8(offset)
            let mask = UInt8(truncatingIfNeeded: 0xFF00 >> taken) >> UInt8(offset)
            if mask == 0xFF {
                row[x / 8] = run
            } else {
                mandel_update_bits(row + x / 8, mask, run & mask)
            }
            pixel += taken
        }
    }

    /// Writes `count` pixels from column `column`: the set where a count reached `limit`.
    static func write(
        counts: UnsafePointer<UInt32>, count: Int, limit: Int, into row: UnsafeMutablePointer<UInt8>, column: Int
    ) {
        let limit = UInt32(limit)
        for start in stride(from: 0, to: count, by: 32) {
            let width = min(32, count - start)
            var bits: UInt32 = 0
            for pixel in 0..<width where counts[start + pixel] >= limit { bits |= 0x8000_0000 >> UInt32(pixel) }
            write(bits, count: width, into: row, column: column + start)
        }
    }
}
