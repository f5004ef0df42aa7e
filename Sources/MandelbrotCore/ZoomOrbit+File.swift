import DeepShim
import Platform

// A zoom's orbit as the bytes of a file (`--orbit-out`, `--orbit`), for the tasks of a batch job:
// one task computes it, the others read it. The file is input from a stranger (it may have been
// cut short, edited, or written for another view): every count is checked against the bytes
// there before any memory is taken, every number is checked, and an orbit of another centre,
// precision or limit is refused rather than used.
//
// Its body, after the magic and before the checksum (`OrbitFile` adds both), little-endian:
// the centre's two texts (a count, then UTF-8), the bits (UInt32), the limit and the orbit's
// length (UInt64 each), whether it looked for a period (a byte), the period it stopped at (UInt64,
// 0 for none), the tiny steps' count, each tiny step (its index, re, im, exponent), then
// Z_0 … Z_length as Doubles, re and im interleaved.

/// Why an orbit file's body is refused.
package struct OrbitFileProblem: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

extension ZoomOrbit {
    /// The body's bytes up to the orbit's doubles, and the doubles as they lie in memory (this is
    /// a little-endian machine, as the file is). The steps must be here (``computedSteps(cancellation:)``).
    package func fileBody(
        _ steps: OrbitSteps, _ body: (_ head: [UInt8], _ orbit: UnsafeRawBufferPointer) throws -> Void
    )
        rethrows
    {
        precondition(1.littleEndian == 1, "the orbit's doubles are written as this machine lays them out")
        var writer = WireWriter(capacity: 64 + 32 * steps.tinyIndex.count)
        writer.write(array: Array(centerReal.utf8))
        writer.write(array: Array(centerImaginary.utf8))
        writer.write(UInt32(bits))
        writer.write(UInt64(limit))
        writer.write(UInt64(steps.length))
        writer.write(periodBall != nil)
        writer.write(UInt64(steps.period ?? 0))
        writer.write(UInt64(steps.tinyIndex.count))
        for (index, value) in zip(steps.tinyIndex, steps.tinyValue) {
            writer.write(index)
            writer.write(value.re)
            writer.write(value.im)
            writer.write(value.e)
        }
        try body(
            writer.bytes,
            UnsafeRawBufferPointer(start: steps.orbit, count: 2 * (steps.length + 1) * MemoryLayout<Double>.size))
    }

    /// The orbit in `body` (a file's, checksum checked), if it is `wanted`'s: the same centre texts,
    /// bits and limit, with every count and number in range; throws naming what does not fit.
    package static func read(
        fileBody body: UnsafeRawBufferPointer, for wanted: ZoomOrbit
    ) throws(OrbitFileProblem) -> ZoomOrbit {
        var reader = WireReader(body)
        do {
            let real = try reader.readArray(UInt8.self, limit: 1 << 20)
            let imaginary = try reader.readArray(UInt8.self, limit: 1 << 20)
            let bits = Int(try reader.read(UInt32.self))
            let limit = try reader.read(UInt64.self)
            let length = try reader.read(UInt64.self)
            let looksForPeriod = try reader.readBool()
            let period = try reader.read(UInt64.self)
            let tinyCount = try reader.read(UInt64.self)
            // Texts are checked before they are compared or named: a forged one could hold anything.
            var texts: [String] = []
            for bytes in [real, imaginary] {
                let text = String(decoding: bytes, as: UTF8.self)
                guard text.utf8.elementsEqual(bytes), DeepView.isNumber(text) else {
                    throw OrbitFileProblem("its centre is not a pair of decimal numbers: the file is damaged")
                }
                texts.append(text)
            }
            let centre = "\(texts[0]),\(texts[1])"
            let wantedCentre = "\(wanted.centerReal),\(wanted.centerImaginary)"
            guard centre == wantedCentre else {
                // Centres of a thousand digits are named by their first digits, and where they differ.
                func shown(_ text: String) -> String { text.count > 60 ? text.prefix(60) + "…" : text }
                let same = zip(centre, wantedCentre).prefix { $0 == $1 }.count
                throw OrbitFileProblem(
                    "it is the orbit of --center \(shown(centre)), not \(shown(wantedCentre))"
                        + (same > 40 ? " (they differ from character \(same + 1) on)" : ""))
            }
            guard bits == wanted.bits else {
                throw OrbitFileProblem(
                    "its orbit has \(bits) bits of precision, and this render's needs \(wanted.bits) (the precision "
                        + "follows the deepest zoom and the size: give the same --zoom, --zoom-to and --size as the "
                        + "render that wrote it)")
            }
            guard limit == UInt64(wanted.limit) else {
                throw OrbitFileProblem("its orbit is for --iterations \(limit), not \(wanted.limit)")
            }
            guard length >= 1, length <= limit else {
                throw OrbitFileProblem("it says the orbit has \(length) steps, where 1 to \(limit) are possible")
            }
            guard looksForPeriod == (wanted.periodBall != nil) else {
                throw OrbitFileProblem(
                    "its orbit was computed with --period \(looksForPeriod ? "on" : "off"), and this render's is "
                        + "with --period \(looksForPeriod ? "off" : "on")")
            }
            guard period == 0 || (looksForPeriod && period == length) else {
                throw OrbitFileProblem("it says the orbit of \(length) steps has a period of \(period)")
            }
            let orbitBytes = 16 * (Int(length) + 1)
            guard tinyCount <= length, Int(tinyCount) <= (reader.remaining - orbitBytes) / 32,
                reader.remaining == 32 * Int(tinyCount) + orbitBytes
            else {
                throw OrbitFileProblem(
                    "its \(reader.remaining) bytes after the header do not hold \(tinyCount) small steps and "
                        + "\(length + 1) points")
            }
            var tinyIndex: [UInt64] = []
            var tinyValue: [deep_complex] = []
            tinyIndex.reserveCapacity(Int(tinyCount))
            tinyValue.reserveCapacity(Int(tinyCount))
            var previous: UInt64 = 0
            for _ in 0..<Int(tinyCount) {
                let step = try reader.read(UInt64.self)
                guard step > previous, step <= length else {
                    throw OrbitFileProblem("its small step \(step) is out of order or past the orbit's end")
                }
                previous = step
                let value = deep_complex(
                    re: try reader.readDouble(), im: try reader.readDouble(), e: try reader.read(Int64.self))
                guard value.re.isFinite, value.im.isFinite, abs(value.re) <= 1, abs(value.im) <= 1,
                    abs(value.e) <= 1 << 40
                else { throw OrbitFileProblem("its small step \(step) is not a number in range") }
                tinyIndex.append(step)
                tinyValue.append(value)
            }
            let orbit: UnsafeMutablePointer<Double>
            do { orbit = try DeepReference.allocateOrbit(steps: Int(length)) } catch {
                throw OrbitFileProblem("no memory for an orbit of \(length) steps: \(error)")
            }
            let raw = UnsafeRawBufferPointer(rebasing: body[reader.offset...])
            UnsafeMutableRawPointer(orbit).copyMemory(from: raw.baseAddress!, byteCount: orbitBytes)
            // Z_0 is 0, every point before the last is within the escape radius (the orbit ends at the
            // first outside it), and the last is a finite number.
            for step in 0...Int(length) {
                let (re, im) = (orbit[2 * step], orbit[2 * step + 1])
                let fits =
                    step == 0 ? re == 0 && im == 0 : step < length ? re * re + im * im <= 4 : re.isFinite && im.isFinite
                guard fits else {
                    free(orbit)
                    throw OrbitFileProblem("its point \(step) is \(re), \(im), which no orbit there can have")
                }
            }
            let steps = OrbitSteps(
                orbit: orbit, length: Int(length), tinyIndex: tinyIndex, tinyValue: tinyValue,
                period: period == 0 ? nil : Int(period))
            return ZoomOrbit(
                centerReal: wanted.centerReal, centerImaginary: wanted.centerImaginary, bits: bits,
                limit: wanted.limit, periodBall: wanted.periodBall, steps: steps)
        } catch let problem as OrbitFileProblem {
            throw problem
        } catch {
            throw OrbitFileProblem("it ends early or holds a field out of range (\(error))")
        }
    }
}
