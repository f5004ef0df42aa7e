public import ArgumentParser
public import ImageFiles

/// The file formats `mandel render` writes.
enum ImageFormat: String, CaseIterable, ExpressibleByArgument {
    /// PNG through libpng: 8-bit gray or RGB, with text chunks.
    case png
    /// Binary PBM (`P4`): one bit per pixel, the Benchmarks Game's format.
    case pbm
}

extension PNGCompression: ExpressibleByArgument {}
