import Dispatch
package import ImageFiles
import MandelOptions
package import MandelbrotCore

/// Writes the preview on a queue of its own, so that encoding it never holds the main queue.
///
/// The main queue hands the preview over the moment it arrives and goes on; before the
/// run's outputs are published or discarded, it waits (without blocking) for the queue to
/// be done with the file.
package final class PreviewWriter: @unchecked Sendable {
    // @unchecked: `file` and `failure` are touched only on `queue`, and by the main queue
    // only after `drain()` has waited behind every block queued there.
    private let queue = DispatchQueue(label: "mandel.preview")
    private let file: OutputFile
    private let compression: PNGCompression
    private let workers: Int
    private let placed: @Sendable () -> Void
    private var failure: (any Error)?

    /// - Parameter placed: Called on the writer's queue once the file is in place.
    package init(file: OutputFile, compression: PNGCompression, workers: Int, placed: @escaping @Sendable () -> Void) {
        self.file = file
        self.compression = compression
        self.workers = workers
        self.placed = placed
    }

    /// Encodes `canvas` as a PNG into the file and puts it in place, on the writer's queue; returns at once.
    package func write(_ canvas: PixelBuffer) {
        queue.async {
            do {
                let stream = try ImageStream(
                    output: self.file, format: .png, compression: self.compression, size: canvas.size,
                    pixelFormat: canvas.format,
                    texts: [
                        .init(key: "Software", text: "mandel \(MandelVersion.current)"),
                        .init(key: "mandel.preview", text: "yes"),
                    ],
                    workers: self.workers)
                try canvas.withRows(canvas.size.height) { rows in
                    try stream.write(rows: rows, count: canvas.size.height)
                }
                try stream.finish()
                try self.file.commit()
                self.placed()
            } catch {
                self.failure = error
            }
        }
    }

    /// Waits until every write handed over is done; throws the error one of them met.
    package func drain() async throws {
        let failure = await awaitQueue()
        if let failure { throw failure }
    }

    private func awaitQueue() async -> (any Error)? {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.failure) }
        }
    }
}
