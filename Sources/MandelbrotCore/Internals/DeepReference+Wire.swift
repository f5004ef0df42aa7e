import DeepShim
import Platform

// A deep view's reference orbit as bytes, for the helper processes of the `process` strategy:
// the parent computes the orbit once, and each helper receives it in its pass's recipe and
// builds its own table from it (a table is a fraction of the orbit's time, and built the same
// way from the same orbit it holds the same entries, so the pixels are the same).

extension DeepReference {
    /// The bytes ``encode(to:)`` writes.
    var encodedBytes: Int {
        16 * (Int(context.length) + 1) + 32 * Int(context.tiny_count) + 66 + 24
            + exactView.centerReal.utf8.count + exactView.centerImaginary.utf8.count + exactView.zoom.utf8.count
    }

    /// The orbit, its tiny steps, the view's numbers and whether pixels use the table.
    ///
    /// The orbit's doubles go as they lie in memory: the reader is this same program on this
    /// same machine (a helper), and the wire's numbers are little-endian, as they are here.
    func encode(to writer: inout WireWriter) {
        writer.write(context.length)
        let orbitBytes = 2 * (Int(context.length) + 1) * MemoryLayout<Double>.size
        writer.append(UnsafeRawBufferPointer(start: orbit, count: orbitBytes))
        writer.write(context.tiny_count)
        for index in 0..<Int(context.tiny_count) {
            writer.write(context.tiny_index[index])
            Self.write(context.tiny_value[index], to: &writer)
        }
        writer.write(context.center_re)
        writer.write(context.center_im)
        Self.write(context.inverse_zoom, to: &writer)
        writer.write(context.extended != 0)
        Self.write(largestDelta, to: &writer)
        writer.write(usesTable)
        for text in [exactView.centerReal, exactView.centerImaginary, exactView.zoom] {
            writer.write(array: Array(text.utf8))
        }
        writer.write(UInt32(exactView.bits))
        writer.write(UInt64(exactView.gridSide))
    }

    /// A reference decoded from `reader` for a grid counted to `limit` steps, its table built
    /// here; every count and number is checked.
    static func decode(from reader: inout WireReader, limit: Int) throws(WireReader.Malformed) -> DeepReference {
        precondition(1.littleEndian == 1, "the orbit travels as the machine lays it out, little-endian")
        let length = try reader.read(UInt64.self)
        guard length <= UInt64(limit) else { throw .init("an orbit of \(length) steps for a limit of \(limit)") }
        let doubles = 2 * (Int(length) + 1)
        let raw = try reader.readBytes(doubles * MemoryLayout<Double>.size)
        let tinyCount = try reader.read(UInt64.self)
        guard tinyCount <= length, Int(tinyCount) <= reader.remaining / 32 else {
            throw .init("\(tinyCount) tiny steps in an orbit of \(length)")
        }
        var context = deep_context()
        context.length = length
        context.tiny_count = tinyCount
        // Freed by deep_free_context, as deep_reference_orbit's are.
        context.tiny_index = malloc(max(1, Int(tinyCount)) * 8)?.assumingMemoryBound(to: UInt64.self)
        context.tiny_value = malloc(max(1, Int(tinyCount)) * MemoryLayout<deep_complex>.stride)?
            .assumingMemoryBound(to: deep_complex.self)
        do throws(WireReader.Malformed) {
            guard context.tiny_index != nil, context.tiny_value != nil else { throw WireReader.Malformed("no memory") }
            var previous: UInt64 = 0
            for index in 0..<Int(tinyCount) {
                let step = try reader.read(UInt64.self)
                guard step > previous, step <= length else {
                    throw WireReader.Malformed("tiny step \(step) out of order")
                }
                previous = step
                context.tiny_index[index] = step
                context.tiny_value[index] = try readComplex(&reader)
            }
            context.center_re = try reader.readDouble()
            context.center_im = try reader.readDouble()
            context.inverse_zoom = try readReal(&reader)
            context.extended = try reader.readBool() ? 1 : 0
            let largest = try readReal(&reader)
            let usesTable = try reader.readBool()
            let exactView = try readExactView(&reader)
            guard context.center_re.isFinite, context.center_im.isFinite, context.inverse_zoom.m > 0 else {
                throw WireReader.Malformed("a reference point or zoom that is not a number")
            }
            // The orbit as long as it is (the pixels read Z_0 … Z_length only).
            guard let orbit = try? allocateOrbit(steps: Int(length)) else {
                throw WireReader.Malformed("no memory for an orbit of \(length) steps")
            }
            UnsafeMutableRawPointer(orbit).copyMemory(from: raw.baseAddress!, byteCount: raw.count)
            return DeepReference(
                received: context, orbit: orbit, largestDelta: largest, usesTable: usesTable, exactView: exactView)
        } catch {
            deep_free_context(&context)
            throw error
        }
    }

    /// The view's texts, each a decimal number MPFR reads, and the orbit's precision.
    private static func readExactView(_ reader: inout WireReader) throws(WireReader.Malformed) -> ExactView {
        var texts: [String] = []
        for what in ["centre's real part", "centre's imaginary part", "zoom"] {
            let bytes = try reader.readArray(UInt8.self, limit: .max)
            let text = String(decoding: bytes, as: UTF8.self)
            guard text.utf8.elementsEqual(bytes), deep_is_number(text) != 0 else {
                throw WireReader.Malformed("the view's \(what) is not a decimal number")
            }
            texts.append(text)
        }
        let bits = Int(try reader.read(UInt32.self))
        // A zoom of 1e1000000 (the deepest) over the tallest picture needs about 3.3 million bits.
        guard (64...4_000_000).contains(bits) else {
            throw WireReader.Malformed("an orbit precision of \(bits) bits")
        }
        let side = try reader.read(UInt64.self)
        guard (1...UInt64(ValueLimits.maximumSide * ValueLimits.maximumSupersampling)).contains(side) else {
            throw WireReader.Malformed("a sample grid whose shorter side is \(side)")
        }
        return ExactView(
            centerReal: texts[0], centerImaginary: texts[1], zoom: texts[2], bits: bits, gridSide: Int(side))
    }

    private static func write(_ value: deep_complex, to writer: inout WireWriter) {
        writer.write(value.re)
        writer.write(value.im)
        writer.write(value.e)
    }

    private static func write(_ value: deep_real, to writer: inout WireWriter) {
        writer.write(value.m)
        writer.write(value.e)
    }

    private static func readComplex(_ reader: inout WireReader) throws(WireReader.Malformed) -> deep_complex {
        let value = deep_complex(
            re: try reader.readDouble(), im: try reader.readDouble(), e: try reader.read(Int64.self))
        guard value.re.isFinite, value.im.isFinite else { throw .init("a tiny step that is not a number") }
        return value
    }

    private static func readReal(_ reader: inout WireReader) throws(WireReader.Malformed) -> deep_real {
        let value = deep_real(m: try reader.readDouble(), e: try reader.read(Int64.self))
        guard value.m.isFinite, value.m >= 0 else { throw .init("a deep number of \(value.m)") }
        return value
    }
}
