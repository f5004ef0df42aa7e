import ArgumentParser

/// `render`'s options for seeing the work: maps, a trace and progress.
struct VisualOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Also write an ownership map: the picture faint, each tile tinted by its worker, with a legend.",
            valueName: "file.png"))
    var ownershipMap: String?

    @Option(
        help: ArgumentHelp(
            "Also write a cost map: brightness by the iterations each pixel took (log scale).", valueName: "file.png"))
    var costMap: String?

    @Option(
        help: ArgumentHelp(
            "Also write the run as a Chrome trace (Perfetto, chrome://tracing): a track per worker, a slice per tile.",
            valueName: "file.json"))
    var trace: String?

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Show progress on standard error: a bar on a terminal, a line every few seconds otherwise (default: "
                + "a bar when standard error is a terminal).")
    )
    var progress: Bool?

    /// Whether an output needs the whole picture and every tile record in memory (the maps do; the trace does not).
    var needsWholePicture: Bool { ownershipMap != nil || costMap != nil }

    /// The paths given, with the option that gave each.
    var outputs: [(option: String, path: String)] {
        [("--ownership-map", ownershipMap), ("--cost-map", costMap), ("--trace", trace)].compactMap { option, path in
            path.map { (option, $0) }
        }
    }
}
