/// The bounds of the values a render is made of, which the command line enforces (its
/// `Limits` are these) and a recipe from another process is held to as well: a helper
/// accepts no view the command line would refuse.
package enum ValueLimits {
    /// The largest width or height of a picture: the PNG format's limit, 2³¹ − 1.
    package static let maximumSide = 2_147_483_647
    /// The largest iteration limit: counts are `UInt32`s, and the Benchmarks Game's kernel runs to
    /// its limit + 1 (``RenderJob/kernelLimit``), so one below `UInt32.max`. A deep view's orbit is
    /// not sized by it where it stops at its period (``DeepView/detectsPeriod``).
    package static let maximumIterations = 4_294_967_294
    /// The most samples per pixel along each axis (`--supersample`).
    package static let maximumSupersampling = 8
    /// The largest picture kept whole in memory, in pixels (16384 × 16384): the most a tile can cover.
    package static let maximumInMemoryPixels = 1 << 28
    /// Iterations per trip through the palette.
    package static let paletteCycle = 0.001...1e9
    /// The largest row index a sample grid's formula may be asked for: the tallest picture's, supersampled.
    package static let maximumGridRow = maximumSide * maximumSupersampling
}
