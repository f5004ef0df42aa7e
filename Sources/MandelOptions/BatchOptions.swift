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
        transform: { try ValueParsing.integer($0, allowed: "of 1 or more, at most \(Int.max)") })
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
        help: ArgumentHelp(
            "Frames in all: without --frame, render every frame in one run from one reference orbit, each to -o's name "
                + "with the frame's number (-o frame-%04d.png); with --frame auto, N where the engine gives only K.",
            valueName: "N"),
        transform: { try ValueParsing.integer($0, allowed: "of 1 or more, at most \(Int.max)") })
    package var frames: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The last frame's zoom, for --frame or --frames.", valueName: "zoom"),
        transform: { try ValueParsing.decimal($0) })
    package var zoomTo: DecimalValue?

    @Option(
        name: .customLong("orbit-out"), parsing: .unconditional,
        help: ArgumentHelp(
            "Also write the deep view's reference orbit (its zoom's, with --frame or --frames) to this file, for the "
                + "other tasks of a batch job to read with --orbit.",
            valueName: "file"))
    package var orbitOutput: String?

    @Option(
        name: .customLong("orbit"), parsing: .unconditional,
        help: ArgumentHelp(
            "Take the reference orbit from this file, which --orbit-out wrote for the same centre, zoom (or --zoom-to), "
                + "size and --iterations; a file that does not fit is refused.",
            valueName: "file"))
    package var orbitInput: String?

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

    /// Frame K of N, from `--frame` and `--frames` (and the environment for `auto`); nil without `--frame`.
    package func frameSelection() throws -> (index: Int, count: Int)? {
        guard let frame else { return nil }
        return try EngineIndex.resolve(
            frame, count: frames, option: "--frame", countOption: "--frames",
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

    /// Whether the run renders every frame of a zoom: `--frames N` and `--zoom-to` without `--frame`.
    package var rendersEveryFrame: Bool { frame == nil && frames != nil && zoomTo != nil }

    /// Whether the run renders a zoom's frame or frames: each frame's orbit is then the zoom's.
    package var isZoomSequence: Bool { frame != nil || rendersEveryFrame }

    /// Checks `--frame`, `--frames` and `--zoom-to` against `view`, the first frame's (each frame's
    /// view is ``frameView(of:frame:of:)``).
    ///
    /// Both ends of the zoom obey every rule `--zoom` obeys (each frame lies between them, and a
    /// zoom's limits are a lowest and a deepest zoom); the frames between are computed from the
    /// ends' decimal exponents, so no ratio of the two can overflow or lose digits.
    package func validateFrames(view: ViewOptions, output: String) throws {
        guard isZoomSequence else {
            if zoomTo != nil {
                throw ValidationError(
                    "--zoom-to ends a zoom; add --frames N to render its N frames, or --frame K/N to render one")
            }
            if frames != nil {
                throw ValidationError(
                    "--frames N renders a zoom's N frames; add --zoom-to with the last frame's zoom")
            }
            return
        }
        guard let zoomTo else {
            throw ValidationError("--frame renders one frame of a zoom; add --zoom-to with the last frame's zoom")
        }
        if view.preset == .benchmarksGame {
            throw ValidationError(
                "\(frame != nil ? "--frame" : "--frames") zooms a view; the benchmarks-game preset has a fixed region")
        }
        if let frames, frames < 1 { throw ValidationError("--frames must be 1 or more (got \(frames))") }
        var last = view
        last.zoom = zoomTo
        try last.validate(zoomOption: "--zoom-to")
        let name = try FrameName(output, option: "-o")
        if rendersEveryFrame {
            if !name.hasNumber {
                throw ValidationError(
                    "--frames \(frames!) renders every frame, each to a file of its own: give -o a name with the "
                        + "frame's number, such as frame-%04d.png (got \(output))")
            }
            if part != nil {
                throw ValidationError(
                    "--part renders part of one picture; give --frame K/N with it, or remove --part to render every "
                        + "frame whole")
            }
        }
        let count = try frameSelection()?.count ?? frames!
        let first = view.zoom ?? DecimalValue(value: 1, text: "1")
        if count == 1 && zoomTo.text != first.text {
            let which = frame != nil ? "--frame \(try frameSelection()!.index)/1" : "--frames 1"
            throw ValidationError(
                "\(which): a zoom of one frame is its first zoom, \(first.text), and never reaches --zoom-to "
                    + "\(zoomTo.text); give N of 2 or more, or render --zoom \(zoomTo.text) without --frame")
        }
    }

    /// Frame `index` of `count` of the zoom that starts at `view`.
    package func frameView(of view: ViewOptions, frame index: Int, of count: Int) -> ViewOptions {
        guard let zoomTo else { return view }
        var frameView = view
        frameView.zoom = Self.frameZoom(
            from: view.zoom ?? DecimalValue(value: 1, text: "1"), to: zoomTo, frame: index, of: count)
        return frameView
    }

    /// The frames this run renders (every frame, or the one `--frame` asks for), and the zoom's count;
    /// nil outside a zoom sequence. Valid after ``validateFrames(view:output:)``.
    package func framesRendered() throws -> (indices: Range<Int>, count: Int)? {
        if let (index, count) = try frameSelection() { return (index..<(index + 1), count) }
        guard rendersEveryFrame, let frames else { return nil }
        return (0..<frames, frames)
    }

    /// Frame `index` of `count` of a zoom from `first` to `last`: each frame `(last/first)^(1/(count − 1))`
    /// deeper. The first and the last are the texts given; the others are computed from the ends' decimal
    /// exponents (read exactly from their texts), so that zooms past a `Double`'s range, or below its
    /// normal numbers, interpolate as exactly as shallow ones.
    package static func frameZoom(
        from first: DecimalValue, to last: DecimalValue, frame index: Int, of count: Int
    ) -> DecimalValue {
        guard count > 1, index > 0 else { return first }
        if index == count - 1 { return last }
        let firstExponent = DeepView.decimalExponent(ofZoom: first.text)
        let lastExponent = DeepView.decimalExponent(ofZoom: last.text)
        let exponent = firstExponent + (lastExponent - firstExponent) * (Double(index) / Double(count - 1))
        return DecimalValue(decimalExponent: exponent)
    }
}
