import ArgumentParser
import ImageFiles
import MandelOptions
import MandelbrotCore
import Platform
import RenderModel

/// One tile (or a whole view) rendered by a strategy, then encoded into PNG bytes in memory, by
/// the same pieces as `mandel render`: the render, its facts (which give the PNG's text chunks)
/// and its picture stream. The bytes are therefore the file that `render` with the same
/// arguments writes.
///
/// The two steps are apart so that the server can give the render slot to the next tile while
/// this one's PNG is written: a render keeps both processors busy, the encoding one.
struct TileRender {
    /// The pixels, and what the render reported.
    struct Pixels: @unchecked Sendable {
        // @unchecked: the render has ended; from here on one task reads its canvas, and nothing writes it.
        let render: PictureRender
        let report: RenderReport
    }

    /// The PNG, and the processor time its encoding took.
    struct Picture {
        let bytes: [UInt8]
        let cpuSeconds: Double
    }

    let job: RenderJob
    /// How the PNG is written (its compression).
    let outputs: RenderOutputOptions
    let strategy: any RenderStrategy
    let settings: RunSettings
    let references: DeepReferenceStore

    /// Renders the pixels; throws ``RenderCancelled`` (with the report of what was done) once
    /// `cancellation` is set, or a ``RenderFailure`` when the machine says no (memory, helpers).
    func pixels(cancellation: CancellationFlag) async throws -> Pixels {
        let render = try PictureRender(job: job, strategies: [strategy], cancellation: cancellation)
        let report = try await render.run(
            strategy, settings: settings, cancellation: cancellation, references: references)
        return Pixels(render: render, report: report)
    }

    /// The PNG of `pixels`, written by `render`'s own picture stream.
    func encode(_ pixels: Pixels) throws(ImageFileError) -> Picture {
        let startCPU = CPUTime.currentThread()
        let file = try OutputFile(inMemoryNamed: "tile")
        let facts = RenderFacts(
            job: job, strategy: strategy, plan: pixels.render.plan, bandRows: nil, format: outputs.format,
            output: "tile")
        let stream = try ImageStream(of: facts, output: file, outputs: outputs)
        guard let canvas = pixels.render.canvas else { preconditionFailure("a tile is rendered whole") }
        let written: Result<Void, ImageFileError> = canvas.withBytes { bytes in
            do throws(ImageFileError) { try stream.write(rows: bytes, count: job.size.height) } catch {
                return .failure(error)
            }
            return .success(())
        }
        try written.get()
        try stream.finish()
        guard let bytes = file.bytes else { preconditionFailure("a finished tile's file holds its bytes") }
        let cpu = CPUTime.currentThread().since(startCPU).adding(stream.helperCPU)
        return Picture(bytes: bytes, cpuSeconds: cpu.total)
    }
}
