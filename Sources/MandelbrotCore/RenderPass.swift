/// One run of a strategy over every tile of a plan.
///
/// Most colourings need one pass. Histogram colouring needs the distribution of
/// the whole picture's escape values before it can colour any pixel, so it
/// runs the strategy twice: a counting pass that fills the histogram and
/// writes no pixel, then a colouring pass.
public enum RenderPass: Sendable, Hashable {
    /// Every sample's escape value counted into the histogram; no pixels written.
    case counting
    /// Every pixel computed, coloured and written.
    case coloring
}

/// Who stops a cancelled render.
public enum CancellationMode: String, Sendable, CaseIterable {
    /// The shared flag, which the core checks before every segment of a row and every tile,
    /// and each mechanism's own cancel besides: every strategy stops within a row.
    case flag
    /// Only each mechanism's own cancel (`Thread.cancel()`, `cancelAllOperations()`,
    /// `Task.cancel()`, a pthread's own flag): what the mechanism gives by itself. A
    /// mechanism with none (`concurrentPerform`, a GCD block already running) renders on.
    case native
}
