package import ArgumentParser
package import MandelbrotCore

/// A first picture fast: a coarse preview rendered before the full picture, which depends on it.
package struct PreviewOptions: ParsableArguments {
    package init() {}

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "First render every K-th pixel in each direction, 2…65536, and deliver that preview on the main queue; "
                + "the full picture follows, each strategy making it wait its own way (addDependency, a group's "
                + "notify, structured awaiting, threads by hand).",
            valueName: "K"),
        transform: { try ValueParsing.integer($0, allowed: "from 2 to 65536") })
    package var preview: Int?

    /// Refuses a preview where it cannot come first: histogram colouring (which needs the whole
    /// picture's histogram before it colours anything) and values out of range.
    package func validate(colorScheme: ColorScheme) throws {
        guard let preview else { return }
        guard (2...65536).contains(preview) else {
            throw ValidationError("--preview must be from 2 to 65536 (got \(preview))")
        }
        if colorScheme == .histogram {
            throw ValidationError(
                "--preview colours a coarse picture first, but histogram colouring needs the whole picture's "
                    + "histogram before it colours anything; use another --color")
        }
    }
}
