package import ArgumentParser
package import ImageFiles
import MandelbrotCore

/// What `mandel render` writes: the picture, its format and compression, the report's form
/// and the preview's file.
package struct RenderOutputOptions: ParsableArguments {
    package init() {}

    @Option(name: .shortAndLong, help: "Output file, written whole or not at all; - for standard output.")
    package var output = "mandel.png"

    @Option(help: "Output format: png, or pbm (binary bitmap, black and white only).")
    package var format: ImageFormat = .png

    @Option(
        help: ArgumentHelp(
            "How hard the PNG encoder works: fast (several times faster, larger files), balanced, or small "
                + "(smallest, slowest) (default: balanced).")
    )
    package var compression: PNGCompression?

    @Flag(help: "Print one JSON object instead of the human line.")
    package var json = false

    @Option(
        help: ArgumentHelp(
            "Write the preview as a PNG, put in place as soon as it is ready (it stays if the full render then "
                + "fails); needs --preview.",
            valueName: "file.png"))
    package var previewOutput: String?

    /// The compression asked for, or the standard one.
    package var effectiveCompression: PNGCompression { compression ?? .balanced }

    /// Refuses what the format cannot hold.
    package func validate(for view: ViewOptions) throws {
        if format == .pbm && view.samplesPerAxis > 1 {
            throw ValidationError(
                "--format pbm has one bit per pixel; --supersample blends edges into gray, so use --format png")
        }
        if format == .pbm && view.colorScheme != .bw {
            throw ValidationError("--format pbm is black and white; add --color bw (or use --preset benchmarks-game)")
        }
        if format == .pbm, compression != nil {
            throw ValidationError(
                "--compression sets how hard the PNG encoder works; a PBM is not compressed, so remove it or use "
                    + "--format png"
            )
        }
    }
}
