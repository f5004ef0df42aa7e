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

/// Work that waits after computing each tile, as work that waits for I/O or a lock does:
/// the workload that shows how each mechanism copes with blocking.
public struct TileWait: Sendable, Equatable {
    /// How a worker waits.
    public enum Mode: String, Sendable, CaseIterable {
        /// The thread sleeps, holding its place in the mechanism's pool.
        case blocking
        /// The mechanism's own way to wait without a thread (`asyncAfter`, `Task.sleep`, an
        /// asynchronous `Operation`); a mechanism that has none blocks.
        case async
    }

    /// How long each tile waits, in nanoseconds; 0 for no wait.
    public let nanoseconds: UInt64
    /// How it waits.
    public let mode: Mode

    public init(nanoseconds: UInt64, mode: Mode) {
        self.nanoseconds = nanoseconds
        self.mode = mode
    }

    /// No wait.
    public static let none = TileWait(nanoseconds: 0, mode: .blocking)
}

/// How a run behaves, beyond its strategy and its picture: who stops it, the wait after each
/// tile, how histogram colouring's workers share the histogram, and the order of the tiles.
public struct RunSettings: Sendable, Equatable {
    /// Who stops a cancelled pass: the shared flag, or only the mechanism's own cancel. Either
    /// way no further pass or band is started after a cancel.
    public var cancellationMode: CancellationMode
    /// A wait after each tile's pixels, blocking or the mechanism's own non-blocking way
    /// (``RenderStrategy/asynchronousWait``; a mechanism without one blocks).
    public var tileWait: TileWait
    /// How histogram colouring's workers merge their escape values (the pixels do not depend on it).
    public var sharing: HistogramSharing
    /// The order the tiles should be rendered in; ``TileOrder/centre`` needs a dynamic plan of
    /// one band and at most ``TileOrder/maximumCentreTiles`` tiles.
    public var order: TileOrder

    public init(
        cancellationMode: CancellationMode = .flag, tileWait: TileWait = .none,
        sharing: HistogramSharing = .standard, order: TileOrder = .rows
    ) {
        self.cancellationMode = cancellationMode
        self.tileWait = tileWait
        self.sharing = sharing
        self.order = order
    }
}
