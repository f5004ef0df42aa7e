/// The order in which a picture's tiles should be rendered.
public enum TileOrder: String, CaseIterable, Sendable {
    /// Row by row, from the top left: the plan's own order.
    case rows
    /// Nearest the picture's centre first, where a viewer looks first.
    ///
    /// A strategy whose mechanism has a priority facility (``RenderStrategy/priorityFacility``)
    /// submits its tiles in row order with each tile's priority (``Submission/prioritised(_:)``)
    /// and lets the mechanism choose; whether it does is what there is to measure. Every other
    /// strategy takes tiles from ``RenderWork/nextTile()``, which hands them out centre first.
    case centre

    /// The most tiles a centre-first render may have: a mechanism with a priority facility
    /// queues every tile at once, each as an operation, a block or a task of its own.
    public static let maximumCentreTiles = 1 << 16
}

/// The tiles of a plan ranked by distance from the picture's centre.
struct CentreRanking: Sendable {
    /// `sequence[i]`: the tile to render i-th, nearest the centre first (ties in row order).
    let sequence: [Int]
    /// `rank[tile]`: where `tile` comes in `sequence`.
    let rank: [Int]

    init(plan: WorkPlan) {
        let size = plan.size
        let centreX = Double(size.width) / 2
        let centreY = Double(size.height) / 2
        let distances = (0..<plan.tileCount).map { tile -> Double in
            let rect = plan.rect(of: tile)
            let dx = Double(rect.x) + Double(rect.width) / 2 - centreX
            let dy = Double(rect.y) + Double(rect.height) / 2 - centreY
            return dx * dx + dy * dy
        }
        sequence = (0..<plan.tileCount).sorted { (distances[$0], $0) < (distances[$1], $1) }
        var rank = [Int](repeating: 0, count: plan.tileCount)
        for (position, tile) in sequence.enumerated() { rank[tile] = position }
        self.rank = rank
    }
}
