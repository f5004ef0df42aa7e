import ArgumentParser
package import ImageFiles

/// The file formats `mandel render` writes.
package enum ImageFormat: String, CaseIterable, WordArgument {
    /// PNG through libpng: 8-bit gray or RGB, with text chunks.
    case png
    /// Binary PBM (`P4`): one bit per pixel, the Benchmarks Game's format.
    case pbm

    /// The format's writer: the catalog of formats, one line each.
    package var encoder: any ImageEncoder.Type {
        switch self {
        case .png: PNGWriter.self
        case .pbm: PBMWriter.self
        }
    }
}

/// A fixed, well-known workload.
package enum Preset: String, CaseIterable, WordArgument {
    /// The Computer Language Benchmarks Game "mandelbrot" task: N×N, [−1.5, 0.5] × [−1, 1], 50 iterations.
    case benchmarksGame = "benchmarks-game"
}
