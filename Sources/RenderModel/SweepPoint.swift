package import Comparison
import MandelOptions

/// The axis a sweep varies.
package enum SweepAxis: String {
    case workers
    case tile
    case tileWait = "tile wait"
    case mergeBatch = "merge batch"
}

/// One value of the swept axis and what was measured there.
package struct SweepPoint {
    package let value: Double
    package let comparison: StrategyComparison

    package init(value: Double, comparison: StrategyComparison) {
        self.value = value
        self.comparison = comparison
    }

    /// The value as the table's column head.
    package func label(on axis: SweepAxis) -> String {
        switch axis {
        case .workers: "\(Int(value)) workers"
        case .tile: "tile \(Int(value))"
        case .tileWait: "wait \(NumberFormat.compact(value)) ms"
        case .mergeBatch: "batch \(Int(value))"
        }
    }
}
