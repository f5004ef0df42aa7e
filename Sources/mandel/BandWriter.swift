import Dispatch
import ImageFiles
import MandelbrotCore

/// Writes a banded render's bands to its picture file on a serial queue of its own, while the next band renders.
///
/// The queue is the file's only owner during the render: the encoder, the
/// running checksum and the busy time are touched only there, and read back
/// on the main queue after the last write has completed.
final class BandWriter: @unchecked Sendable {
    // @unchecked: the mutable state below is confined to `queue` until the
    // render is over; each write's completion orders it before any later read.
    private let queue = DispatchQueue(label: "mandel.writer", qos: .userInitiated)
    private let stream: ImageStream
    private var runningChecksum = PixelChecksum()
    private var busySeconds = 0.0

    /// Takes over `stream`, whose header is already written.
    init(stream: ImageStream) { self.stream = stream }

    /// The temporary file being written, for an emergency exit to remove.
    var temporaryPath: String? { stream.output.temporaryPath }

    /// Encodes `band` on the writer's queue and returns, without blocking the
    /// caller, once it is written; the result is the processor time it took.
    ///
    /// - Throws: `ImageFileError` (the partial file is then already removed).
    func write(_ band: PixelBuffer) async throws -> CPUTime {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let startCPU = CPUTime.currentThread()
                let start = DispatchTime.now().uptimeNanoseconds
                do {
                    try band.withBytes { bytes in
                        try self.stream.write(rows: bytes, count: band.size.height)
                        self.runningChecksum.add(bytes)
                    }
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                self.busySeconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                continuation.resume(returning: CPUTime.currentThread().since(startCPU))
            }
        }
    }

    /// Seconds the writer's queue spent encoding and writing; read after the last write.
    var writeSeconds: Double { queue.sync { busySeconds } }

    /// The checksum of every byte written, equal to the whole picture's ``PixelBuffer/checksum``.
    var checksum: UInt64 { queue.sync { runningChecksum.value } }

    /// Ends the image and moves the file into place.
    func finish() throws(ImageFileError) {
        let result: Result<Void, ImageFileError> = queue.sync {
            do throws(ImageFileError) { try stream.finish() } catch { return .failure(error) }
            return .success(())
        }
        try result.get()
    }

    /// Removes whatever was written.
    func discard() { queue.sync { stream.discard() } }
}
