import Foundation
package import ImageFiles
package import MandelbrotCore
import Platform

/// A zoom's reference orbit in a file (`render --orbit-out`, `render --orbit`): one task of a
/// batch job computes it, the frame or part tasks read it instead of computing it again.
///
/// Layout: the magic `mandel orbit 1\n` (15 bytes), the body ``ZoomOrbit`` writes
/// (`fileBody`), and the CRC-32 of everything before it (4 bytes, little-endian). A file is
/// taken only if it is a regular file, its checksum holds, and its orbit is the one the render
/// would compute (centre texts, precision, limit); otherwise it is refused with one line (exit
/// 65; 66 if it cannot be read), never used.
package enum OrbitFile {
    static let magic = Array("mandel orbit 1\n".utf8)

    /// Why an orbit file was not taken.
    package struct Refused: Error, CustomStringConvertible, LocalizedError {
        package let description: String
        /// 66 (`EX_NOINPUT`) when the file cannot be read, 65 (`EX_DATAERR`) when it is not the orbit asked for.
        package let exitCode: Int32
        package var errorDescription: String? { description }

        init(_ path: String, _ reason: String, exitCode: Int32 = 65) {
            description = "--orbit '\(Display.path(path))': \(reason)"
            self.exitCode = exitCode
        }
    }

    /// Writes `orbit`'s steps into `file`, computing them first if no render needed them, and closes it;
    /// the caller puts it in place with the run's other outputs. Throws ``CommandRun/Stopped`` when the
    /// run is stopped while the orbit is computed.
    package static func write(
        _ orbit: ZoomOrbit, to file: OutputFile, cancellation: CancellationFlag
    ) throws {
        guard let steps = try orbit.computedSteps(cancellation: cancellation) else { throw CommandRun.Stopped() }
        try write(orbit, steps: steps, to: file)
    }

    /// Writes `orbit`'s steps (which must be here) into `file`, and closes it: the caller puts it in place
    /// (`commit`), with the run's other outputs.
    package static func write(_ orbit: ZoomOrbit, steps: OrbitSteps, to file: OutputFile) throws(ImageFileError) {
        do {
            try orbit.fileBody(steps) { head, points in
                var crc = magic.withUnsafeBytes { Checksum.crc32($0) }
                try file.write(magic)
                head.withUnsafeBytes { crc = Checksum.crc32($0, continuing: crc) }
                try file.write(head)
                crc = Checksum.crc32(points, continuing: crc)
                try file.write(points)
                try file.write(withUnsafeBytes(of: crc.littleEndian) { Array($0) })
            }
        } catch let failure as ImageFileError {
            throw failure
        } catch {
            throw .writeFailed(path: file.path, reason: "\(error)")
        }
        try file.flushAndClose()
    }

    /// The orbit in the file at `path`, if it is `wanted`'s; throws ``Refused`` naming what does not fit.
    package static func read(_ path: String, for wanted: ZoomOrbit) throws(Refused) -> ZoomOrbit {
        var status = stat()
        guard stat(path, &status) == 0 else { throw Refused(path, String(cString: strerror(errno)), exitCode: 66) }
        if let refusal = FileKind.refusal(status, for: "an orbit file") { throw Refused(path, refusal, exitCode: 66) }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Refused(path, String(cString: strerror(errno)), exitCode: 66) }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else {
            throw Refused(path, String(cString: strerror(errno)), exitCode: 66)
        }
        if let refusal = FileKind.refusal(status, for: "an orbit file") { throw Refused(path, refusal, exitCode: 66) }
        let size = Int(status.st_size)
        guard size >= magic.count + 4 else {
            throw Refused(path, "it has \(size) bytes, too few for an orbit file (written by render --orbit-out)")
        }
        // Read, not mapped: a mapped file that another process cuts short while it is read raises
        // SIGBUS. The copy is held only while it is checked and parsed (the orbit's own memory is
        // allocated as it is parsed), so a file of N bytes peaks at about 2N for a moment.
        guard let buffer = malloc(size) else {
            throw Refused(path, "no memory to read its \(size) bytes", exitCode: 66)
        }
        defer { free(buffer) }
        var done = 0
        while done < size {
            let got = pread(descriptor, buffer + done, size - done, off_t(done))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                throw Refused(
                    path,
                    got < 0
                        ? "it cannot be read: \(String(cString: strerror(errno)))"
                        : "it was cut short while it was read (\(done) of \(size) bytes)", exitCode: got < 0 ? 66 : 65)
            }
            done += got
        }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: size)
        guard bytes.prefix(magic.count).elementsEqual(magic) else {
            throw Refused(path, "it is not an orbit file (written by render --orbit-out): its first bytes differ")
        }
        let covered = UnsafeRawBufferPointer(rebasing: bytes[..<(size - 4)])
        var stored: UInt32 = 0
        withUnsafeMutableBytes(of: &stored) {
            $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[(size - 4)...]))
        }
        guard Checksum.crc32(covered) == UInt32(littleEndian: stored) else {
            throw Refused(path, "its checksum does not hold: the file is damaged or cut short")
        }
        do {
            return try ZoomOrbit.read(fileBody: UnsafeRawBufferPointer(rebasing: covered[magic.count...]), for: wanted)
        } catch {
            throw Refused(path, error.description)
        }
    }
}
