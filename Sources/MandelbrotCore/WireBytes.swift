/// Bytes for a message between processes: little-endian numbers appended in order.
package struct WireWriter {
    /// What has been written.
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    package mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func write(_ value: Double) { write(value.bitPattern) }

    package mutating func write(_ value: Bool) { write(UInt8(value ? 1 : 0)) }

    /// A count (as a `UInt32`), then the raw bytes of `values`.
    package mutating func write<T: FixedWidthInteger>(array values: [T]) {
        write(UInt32(values.count))
        for value in values { write(value) }
    }

    package mutating func append(_ raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }
}

/// Reads what a ``WireWriter`` wrote, checking every length against what is left: a
/// message from another process is input, and a short or malformed one is an error, never a trap.
package struct WireReader {
    /// The message is shorter than its fields say, or a field holds an impossible value.
    package struct Malformed: Error, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    private let bytes: UnsafeRawBufferPointer
    /// The offset of the next unread byte.
    package private(set) var offset = 0

    /// Reads `bytes`, which must outlive the reader.
    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Bytes not yet read.
    package var remaining: Int { bytes.count - offset }

    package mutating func read<T: FixedWidthInteger>(_ type: T.Type = T.self) throws(Malformed) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw Malformed("message ends inside a \(size)-byte field at \(offset)") }
        var value = T.zero
        withUnsafeMutableBytes(of: &value) {
            $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size]))
        }
        offset += size
        return T(littleEndian: value)
    }

    package mutating func readDouble() throws(Malformed) -> Double { Double(bitPattern: try read(UInt64.self)) }

    /// A `Double` that must be finite; `what` names it in the error.
    package mutating func readFiniteDouble(_ what: String) throws(Malformed) -> Double {
        let value = try readDouble()
        guard value.isFinite else { throw Malformed("\(what) is \(value), not a finite number") }
        return value
    }

    package mutating func readBool() throws(Malformed) -> Bool {
        switch try read(UInt8.self) {
        case 0: false
        case 1: true
        case let other: throw Malformed("a flag holds \(other)")
        }
    }

    /// A count and that many values, the count checked against the bytes left and `limit`.
    package mutating func readArray<T: FixedWidthInteger>(_ type: T.Type = T.self, limit: Int) throws(Malformed) -> [T]
    {
        let count = Int(try read(UInt32.self))
        guard count <= limit, count <= remaining / MemoryLayout<T>.size else {
            throw Malformed(
                "an array of \(count) values where at most \(min(limit, remaining / MemoryLayout<T>.size)) fit")
        }
        var values: [T] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try read(T.self)) }
        return values
    }

    /// A count that must lie in `range`.
    package mutating func readCount(in range: ClosedRange<Int>, _ what: String) throws(Malformed) -> Int {
        let value = Int(try read(UInt32.self))
        guard range.contains(value) else { throw Malformed("\(what) is \(value), outside \(range)") }
        return value
    }

    /// The next `count` bytes, unread until now.
    package mutating func readBytes(_ count: Int) throws(Malformed) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw Malformed("\(count) bytes asked for, \(remaining) left") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    /// Throws unless every byte has been read.
    package func expectEnd() throws(Malformed) {
        guard remaining == 0 else { throw Malformed("\(remaining) bytes past the message's end") }
    }
}
