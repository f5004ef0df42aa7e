import Dispatch
package import ImageFiles
import MandelOptions
package import MandelbrotCore
package import Platform

/// Writes a render's bands to its picture file on a serial queue of its own, while the next bands render.
///
/// The queue is the file's only owner during the render: the encoder, the
/// running checksum and the busy time are touched only there, and read back
/// on the main queue after the last write has completed. Between blocks of
/// rows it looks at the render's cancel flag, so a signal stops the encoder
/// as fast as it stops the workers.
package final class BandWriter: BandSink, @unchecked Sendable {
    // @unchecked: the mutable state below is confined to `queue`; each read from
    // outside goes through queue.sync after the render's last band was written.
    private let queue = DispatchQueue(label: "mandel.writer", qos: .userInitiated)
    private let stream: ImageStream
    private let cancellation: CancellationFlag
    private var runningChecksum = PixelChecksum()
    private var busySeconds = 0.0

    /// Takes over `stream`, whose header is already written.
    package init(stream: ImageStream, cancellation: CancellationFlag) {
        self.stream = stream
        self.cancellation = cancellation
    }

    package func consume(_ band: FinishedBand, done: @escaping @Sendable (Result<CPUTime, any Error>) -> Void) {
        queue.async {
            // The encoder's own threads count too: a report leaves out all of the writing.
            let startCPU = CPUTime.currentThread().adding(self.stream.helperCPU)
            let start = MonotonicClock.nanoseconds()
            do {
                try band.withBytes { bytes in
                    // Rows encoded between two looks at the cancel flag.
                    let rowsPerBlock = self.stream.rowsPerWrite
                    for top in stride(from: 0, to: band.rows.count, by: rowsPerBlock) {
                        // A cancel needs no more of this band: the file will be discarded.
                        if self.cancellation.isCancelled { return }
                        let count = min(rowsPerBlock, band.rows.count - top)
                        let block = UnsafeBufferPointer(
                            rebasing: bytes[(top * self.stream.bytesPerRow)..<((top + count) * self.stream.bytesPerRow)]
                        )
                        try self.stream.write(rows: block, count: count)
                        self.runningChecksum.add(block)
                    }
                }
            } catch {
                done(.failure(error))
                return
            }
            self.busySeconds += MonotonicClock.seconds(since: start)
            done(.success(CPUTime.currentThread().adding(self.stream.helperCPU).since(startCPU)))
        }
    }

    /// Seconds the writer's queue spent encoding and writing; read after the last write.
    package var writeSeconds: Double { queue.sync { busySeconds } }

    /// The checksum of every byte written, equal to the whole picture's ``PixelBuffer/checksum``.
    package var checksum: UInt64 { queue.sync { runningChecksum.value } }

    /// Ends the image; the file is complete, and is put in place with the run's other outputs.
    package func finish() throws(ImageFileError) {
        let result: Result<Void, ImageFileError> = queue.sync {
            do throws(ImageFileError) { try stream.finish() } catch { return .failure(error) }
            return .success(())
        }
        try result.get()
    }
}
