import ArgumentParser
import ImageFiles
import MandelOptions
import MandelbrotCore
import Platform
import RenderModel

/// One tile (or a whole view) rendered by a strategy into PNG bytes in memory, by the same
/// pieces as `mandel render`: the render, its facts (which give the PNG's text chunks) and its
/// picture stream. The bytes are therefore the file that `render` with the same arguments writes.
struct TileRender {
    /// The PNG, and what the render reported.
    struct Picture {
        let bytes: [UInt8]
        let report: RenderReport
    }

    let job: RenderJob
    /// How the PNG is written (its compression).
    let outputs: RenderOutputOptions
    let strategy: any RenderStrategy
    let settings: RunSettings
    let references: DeepReferenceStore

    /// Renders and encodes; throws ``RenderCancelled`` (with the report of what was done) once
    /// `cancellation` is set, a ``RenderFailure`` when the machine says no (memory, helpers),
    /// or an ``ImageFileError``.
    func run(cancellation: CancellationFlag) async throws -> Picture {
        let render = try PictureRender(
            job: job, strategies: [strategy], cancellation: cancellation)
        let file = try OutputFile(inMemoryNamed: "tile")
        let facts = RenderFacts(
            job: job, strategy: strategy, plan: render.plan, bandRows: nil, format: outputs.format, output: "tile")
        let writer = BandWriter(
            stream: try ImageStream(of: facts, output: file, outputs: outputs), cancellation: cancellation)
        let report = try await render.run(
            strategy, sink: writer, settings: settings, cancellation: cancellation, references: references)
        try writer.finish()
        guard let bytes = file.bytes else { preconditionFailure("a finished tile's file holds its bytes") }
        return Picture(bytes: bytes, report: report)
    }
}
