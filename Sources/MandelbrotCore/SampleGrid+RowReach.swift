extension SampleGrid.ImaginaryParts.Formula {
    /// The largest row index that any layer of the formula is asked for when rows 0 ..< `rows`
    /// are, or nil if it passes `Int.max`: a recipe's formula comes from another process, and a
    /// coarse grid of a coarse grid multiplies its rows.
    func largestRow(seenFromRows rows: Int) -> Int? {
        guard rows > 0 else { return 0 }
        let last = rows - 1
        let rowsBelow: Int?
        switch self {
        case .view, .benchmarksGame: return last
        case .coarse(_, let every, let samples):
            // SampleGrid.fineIndex: (y / samples) · every · samples + y % samples, largest at the last row's pixel.
            let (steps, overflow) = (last / samples).multipliedReportingOverflow(by: every)
            let (before, overflowAgain) = steps.multipliedReportingOverflow(by: samples)
            rowsBelow = overflow || overflowAgain || before > Int.max - samples ? nil : before + samples
        case .shifted(_, let first):
            let (end, overflow) = first.addingReportingOverflow(rows)
            rowsBelow = overflow ? nil : end
        }
        guard let rowsBelow, let below = base?.largestRow(seenFromRows: rowsBelow) else { return nil }
        return max(last, below)
    }

    /// The formula a coarse or shifted grid is made from.
    private var base: Self? {
        switch self {
        case .view, .benchmarksGame: nil
        case .coarse(let base, _, _), .shifted(let base, _): base
        }
    }
}
