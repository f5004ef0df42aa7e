import ArgumentParser
import Foundation
import ImageFiles
import MandelbrotCore
import WorkVisuals

/// `render`'s options for seeing the work: maps, a trace and progress.
struct VisualOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Also write an ownership map: the picture faint, each tile tinted by its worker, with a legend.", valueName: "file.png"))
    var ownershipMap: String?

    @Option(help: ArgumentHelp("Also write a cost map: brightness by the iterations each pixel took (log scale).", valueName: "file.png"))
    var costMap: String?

    @Option(help: ArgumentHelp("Also write the run as a Chrome trace (Perfetto, chrome://tracing): a track per worker, a slice per tile.", valueName: "file.json"))
    var trace: String?

    @Flag(inversion: .prefixedNo, help: "Show a progress bar on standard error (default: only when it is a terminal; it appears after half a second).")
    var progress: Bool?

    /// The outputs, opened before the render so a bad path fails at once.
    struct Outputs {
        let ownershipMap: OutputFile?
        let costMap: OutputFile?
        let trace: OutputFile?

        /// The temporary files being written, for an emergency exit to remove.
        var temporaryPaths: [String?] { [ownershipMap, costMap, trace].map { $0?.temporaryPath } }

        /// Draws and writes whichever outputs were asked for.
        func write(canvas: PixelBuffer, counts: IterationCounts?, work: RenderWork, report: RenderReport, title: String) throws(ImageFileError) {
            if let ownershipMap {
                try PictureWriter.writePNG(OwnershipMap.draw(canvas: canvas, report: report, title: title), to: ownershipMap)
            }
            if let costMap, let counts {
                let grid = SampleGrid.of(work.job)
                try PictureWriter.writePNG(CostMap.draw(counts: counts, grid: grid, kernel: work.job.kernel, julia: work.job.julia), to: costMap)
            }
            try writeTrace(report: report, title: title)
        }

        /// Writes the trace, if one was asked for: the one output a banded render can make.
        func writeTrace(report: RenderReport, title: String) throws(ImageFileError) {
            if let trace {
                try trace.write(Array(ChromeTrace.json(for: report, title: "mandel render: " + title)))
            }
        }
    }

    /// Whether an output needs the whole picture and every tile record in memory (the maps do; the trace does not).
    var needsWholePicture: Bool { ownershipMap != nil || costMap != nil }

    func openOutputs() throws(ImageFileError) -> Outputs {
        Outputs(
            ownershipMap: try ownershipMap.map { path throws(ImageFileError) in try OutputFile(path: path) },
            costMap: try costMap.map { path throws(ImageFileError) in try OutputFile(path: path) },
            trace: try trace.map { path throws(ImageFileError) in try OutputFile(path: path) })
    }
}
