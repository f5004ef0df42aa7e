import MandelbrotCore

/// The documented bounds of every option (README, "Options"); those of a render's values are
/// ``ValueLimits``', which a helper process holds its recipes to as well.
package enum Limits {
    /// The largest width or height: the PNG format's limit, 2³¹ − 1 (the writer lifts
    /// libpng's default limit of 1,000,000, which only protects readers).
    package static let maximumSide = ValueLimits.maximumSide
    /// The largest picture that `compare`, `sweep` and the work maps keep whole in memory (16384 × 16384 pixels).
    package static let maximumInMemoryPixels = ValueLimits.maximumInMemoryPixels
    /// `render` keeps a picture of up to this many bytes whole in memory; larger ones
    /// render in bands, which is faster from here up (the encoder overlaps the render).
    package static let wholePictureBytes = 8 << 20
    /// The most bytes one band of a banded render holds (three are in flight at once).
    package static let bandBytes = 8 << 20
    /// The fewest bands a picture is cut into by default, so that encoding overlaps rendering.
    package static let minimumBands = 8
    /// The largest iteration limit.
    package static let maximumIterations = ValueLimits.maximumIterations
    /// The most samples per pixel along each axis.
    package static let maximumSupersampling = ValueLimits.maximumSupersampling
    /// The deepest zoom, 10^1,000,000: the reference orbit's numbers then have 3.3 million bits
    /// (18 ms a step here; MPFR's memory, which nothing else bounds, grows with them and aborts
    /// the process when it runs out: 10^300,000,000 did under `ulimit -v 1000000`).
    package static let maximumZoomExponent = 1_000_000
    /// The most workers.
    package static let maximumWorkers = 1024
    /// The longest grace after SIGTERM, in seconds.
    package static let maximumGrace = 3600.0
    /// Iterations per trip through the palette: below the minimum a pixel's colour no longer
    /// follows its escape value (the fraction of a cycle runs out of digits).
    package static let paletteCycle = ValueLimits.paletteCycle
}
