package import ArgumentParser

/// `render`'s options for seeing the work: maps, a trace and progress.
package struct VisualOptions: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "Also write an ownership map: the picture faint, each tile tinted by its worker, with a legend.",
            valueName: "file.png"))
    package var ownershipMap: String?

    @Option(
        help: ArgumentHelp(
            "Also write a cost map: brightness by the iterations each pixel took (log scale).", valueName: "file.png"))
    package var costMap: String?

    @Option(
        help: ArgumentHelp(
            "Also write every pixel's escape count as a NumPy array: little-endian uint32, shape (height, width), "
                + "the iteration limit for points that never escape.",
            valueName: "file.npy"))
    package var counts: String?

    @Option(
        help: ArgumentHelp(
            "Also write the run as a Chrome trace (Perfetto, chrome://tracing): a track per worker, a slice per tile.",
            valueName: "file.json"))
    package var trace: String?

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Show progress on standard error: a bar on a terminal, a line every few seconds otherwise (default: "
                + "a bar when standard error is a terminal).")
    )
    package var progress: Bool?

    /// Whether an output needs the whole picture and every tile record in memory (the maps do; the trace does not).
    package var needsWholePicture: Bool { ownershipMap != nil || costMap != nil || counts != nil }

    /// Whether the render keeps every pixel's escape count.
    package var keepsCounts: Bool { costMap != nil || counts != nil }

    /// What a file of these options holds, named by its option.
    package enum File: String {
        case ownershipMap = "--ownership-map"
        case costMap = "--cost-map"
        case counts = "--counts"
        case trace = "--trace"
    }

    /// The files given.
    package var outputs: [Output<File>] {
        Output.given([.ownershipMap: ownershipMap, .costMap: costMap, .counts: counts, .trace: trace])
    }
}
