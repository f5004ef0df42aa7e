package import ArgumentParser
import Foundation
package import ImageFiles
package import MandelbrotCore

/// `mandel render`'s options for work spread over a batch engine: one part of a picture, or
/// one frame of a zoom.
package struct BatchOptions: ParsableArguments {
    package init() {}

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Render part K (from 0) of N of the picture as a part file, for 'mandel join'; auto takes K (and N) "
                + "from a batch engine: Slurm, Kubernetes, AWS Batch, GNU parallel (see docs/parts.md).",
            valueName: "K/N|auto"),
        transform: { try ValueParsing.indexChoice($0) })
    package var part: IndexChoice?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Parts in all, for --part auto where the engine gives only K.", valueName: "N"),
        transform: { try ValueParsing.integer($0) })
    package var parts: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Render frame K (from 0) of N of a zoom from --zoom to --zoom-to, the zoom growing by the same factor "
                + "each frame; auto takes K (and N) from a batch engine, like --part.",
            valueName: "K/N|auto"),
        transform: { try ValueParsing.indexChoice($0) })
    package var frame: IndexChoice?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Frames in all, for --frame auto where the engine gives only K.", valueName: "N"),
        transform: { try ValueParsing.integer($0) })
    package var frames: Int?

    @Option(
        parsing: .unconditional, help: ArgumentHelp("The last frame's zoom, for --frame.", valueName: "zoom"),
        transform: { try ValueParsing.real($0) })
    package var zoomTo: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Render only this window of the picture: W×H pixels from pixel (X, Y) of its grid, which goes on past its "
                + "edges (X and Y may be negative or beyond the size); each pixel is the one the picture has or "
                + "would have there, the same bytes (what 'mandel serve' sends as tiles).",
            valueName: "X,Y,W,H"),
        transform: { try ValueParsing.window($0) })
    package var window: PixelWindow?

    /// Part K of N, from `--part` and `--parts` (and the environment for `auto`); nil without `--part`.
    package func partSelection() throws -> (index: Int, count: Int)? {
        guard let part else { return nil }
        return try EngineIndex.resolve(
            part, count: parts, option: "--part", countOption: "--parts",
            environment: ProcessInfo.processInfo.environment)
    }

    /// The slices of the picture's PNG, which parts are made of.
    package func sliceGrid(for view: ViewOptions) -> SliceGrid {
        let format = view.colorScheme.pixelFormat(supersampling: view.samplesPerAxis)
        return SliceGrid(
            height: view.size.height, bytesPerRow: format.bytesPerRow(width: view.size.width))
    }

    /// Refuses what a window cannot be: a window of a part, of the fixed preset, or with a colouring
    /// that needs the whole picture.
    package func validateWindow(view: ViewOptions) throws {
        guard window != nil else { return }
        if part != nil { throw ValidationError("--window and --part each render some of a picture; give one") }
        try Self.validateWindow(preset: view.preset, colorScheme: view.colorScheme)
    }

    /// Refuses a window of the fixed preset, or of a colouring that needs the whole picture.
    package static func validateWindow(preset: Preset?, colorScheme: ColorScheme) throws {
        if let preset {
            throw ValidationError("--window takes pixels of a view; the \(preset.rawValue) preset has a fixed region")
        }
        if colorScheme == .histogram {
            throw ValidationError(
                "--color histogram spreads the palette over the whole picture's escape values, which no window sees "
                    + "alone; use --color smooth, gray or bw with --window")
        }
    }

    /// Refuses up front what a part cannot be: everything else one machine renders works in parts.
    package func validateParts(outputs: RenderOutputOptions, view: ViewOptions, firstPicture: PreviewOptions) throws {
        guard part != nil else {
            if parts != nil {
                throw ValidationError("--parts N is the count for --part auto; add --part auto, or remove --parts")
            }
            return
        }
        if let parts, parts < 1 { throw ValidationError("--parts must be 1 or more (got \(parts))") }
        if part == .auto && frame == .auto {
            throw ValidationError(
                "--part auto and --frame auto would both take the engine's one index; fix one of them")
        }
        if outputs.format == .pbm {
            throw ValidationError("--part writes a part of a PNG, for 'mandel join'; remove --format pbm")
        }
        if view.colorScheme == .histogram {
            throw ValidationError(
                "--color histogram spreads the palette over the whole picture's escape values, which no part sees "
                    + "alone; use --color smooth with parts, or render it on one machine")
        }
        if firstPicture.preview != nil {
            throw ValidationError("--preview shows a whole picture first; remove it with --part")
        }
        guard let (_, count) = try partSelection() else { return }
        let grid = sliceGrid(for: view)
        if count > grid.sliceCount {
            throw ValidationError(
                "--part: a \(view.size) picture is \(grid.sliceCount) compressed "
                    + "slice\(grid.sliceCount == 1 ? "" : "s") "
                    + "of \(grid.sliceRows) row\(grid.sliceRows == 1 ? "" : "s"), and a part is whole slices; "
                    + "cut it into at most \(grid.sliceCount) parts (got \(count))")
        }
    }

    /// Checks `--frame`, `--frames` and `--zoom-to`, and sets the zoom of the frame asked for.
    package func validateFrames(view: inout ViewOptions) throws {
        guard let frame else {
            if frames != nil || zoomTo != nil {
                throw ValidationError(
                    "\(frames != nil ? "--frames" : "--zoom-to") belongs to a zoom sequence; add --frame K/N (or auto)")
            }
            return
        }
        guard let zoomTo else {
            throw ValidationError("--frame renders one frame of a zoom; add --zoom-to with the last frame's zoom")
        }
        guard zoomTo.isFinite && zoomTo > 0 else {
            throw ValidationError("--zoom-to must be a finite zoom greater than 0 (got \(zoomTo))")
        }
        if view.preset == .benchmarksGame {
            throw ValidationError("--frame zooms a view; the benchmarks-game preset has a fixed region")
        }
        if let frames, frames < 1 { throw ValidationError("--frames must be 1 or more (got \(frames))") }
        // The frames' zooms are computed in Double: a first zoom past it would make them inf and nan.
        if let zoom = view.zoom, !zoom.value.isFinite {
            throw ValidationError(
                "--frame computes its zooms in Double: --zoom must be at most 1.8e308 with --frame (got \(zoom.text))")
        }
        let (index, count) = try EngineIndex.resolve(
            frame, count: frames, option: "--frame", countOption: "--frames",
            environment: ProcessInfo.processInfo.environment)
        let zoom = Self.frameZoom(from: view.zoom?.value ?? 1, to: zoomTo, frame: index, of: count)
        view.zoom = DecimalValue(value: zoom, text: "\(zoom)")
    }

    /// Frame `index` of `count` of a zoom from `first` to `last`: each frame `(last/first)^(1/(count − 1))` deeper.
    package static func frameZoom(from first: Double, to last: Double, frame index: Int, of count: Int) -> Double {
        guard count > 1 else { return first }
        if index == count - 1 { return last }
        return first * pow(last / first, Double(index) / Double(count - 1))
    }
}
