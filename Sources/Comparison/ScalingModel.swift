import Foundation

/// How a strategy's speed grows with its workers, fitted to a sweep over `--workers`: Amdahl's
/// serial fraction, and the Universal Scalability Law's contention σ and coherency κ (Gunther,
/// "Guerrilla Capacity Planning", ch. 5–6), with the worker count where the fitted curve peaks.
///
/// The speedup at N workers is S(N) = T(1)/T(N). The law says S(N) = N / (1 + σ(N − 1) + κN(N − 1));
/// Amdahl's is the law with κ = 0. Both are fitted as Gunther fits them, by least squares on the
/// deviation from linear scaling, N/S(N) − 1 = σ(N − 1) + κN(N − 1), a line (a parabola) through
/// the origin, with σ and κ kept at 0 or more.
package struct ScalingModel: Equatable, Sendable {
    /// Amdahl's serial fraction: the share of one worker's time that no second worker shortens.
    package let serialFraction: Double
    /// The law's contention: the share of time spent waiting for what workers share.
    package let contention: Double
    /// The law's coherency: the cost of keeping each pair of workers consistent, which makes the curve fall.
    package let coherency: Double
    /// The measured points it was fitted to: workers and speedup.
    package let points: [(workers: Int, speedup: Double)]

    package static func == (a: ScalingModel, b: ScalingModel) -> Bool {
        a.serialFraction == b.serialFraction && a.contention == b.contention && a.coherency == b.coherency
            && a.points.map(\.workers) == b.points.map(\.workers) && a.points.map(\.speedup) == b.points.map(\.speedup)
    }

    /// The fit to `times` (median seconds by worker count), or nil without a time at 1 worker and one
    /// at 2 or more (a speedup needs the one-worker time).
    package init?(times: [(workers: Int, seconds: Double)]) {
        guard let one = times.first(where: { $0.workers == 1 })?.seconds, one > 0 else { return nil }
        let points = times.filter { $0.workers > 1 && $0.seconds > 0 }.map { ($0.workers, one / $0.seconds) }
        guard !points.isEmpty else { return nil }
        self.points = points.map { (workers: $0.0, speedup: $0.1) }
        // The deviation from linear scaling at each point: y = N/S − 1, against a = N − 1 and b = N(N − 1).
        let rows = points.map { (n, s) in (a: Double(n - 1), b: Double(n * (n - 1)), y: Double(n) / s - 1) }
        let aa = rows.reduce(0) { $0 + $1.a * $1.a }
        let ay = rows.reduce(0) { $0 + $1.a * $1.y }
        serialFraction = max(0, ay / aa)
        // Two unknowns need two worker counts beyond 1; with one, the law is Amdahl's.
        let bb = rows.reduce(0) { $0 + $1.b * $1.b }
        let ab = rows.reduce(0) { $0 + $1.a * $1.b }
        let by = rows.reduce(0) { $0 + $1.b * $1.y }
        let determinant = aa * bb - ab * ab
        guard Set(points.map(\.0)).count >= 2, determinant > 1e-12 * aa * bb else {
            contention = serialFraction
            coherency = 0
            return
        }
        var sigma = (ay * bb - by * ab) / determinant
        var kappa = (aa * by - ab * ay) / determinant
        // A negative coefficient has no meaning: fit the other alone.
        if kappa < 0 {
            kappa = 0
            sigma = max(0, ay / aa)
        } else if sigma < 0 {
            sigma = 0
            kappa = max(0, by / bb)
        }
        contention = sigma
        coherency = kappa
    }

    /// The law's speedup at `workers`.
    package func speedup(at workers: Int) -> Double {
        let n = Double(workers)
        return n / (1 + contention * (n - 1) + coherency * n * (n - 1))
    }

    /// Amdahl's speedup at `workers`.
    package func amdahlSpeedup(at workers: Int) -> Double {
        let n = Double(workers)
        return n / (1 + serialFraction * (n - 1))
    }

    /// The worker count where the law's curve peaks, √((1 − σ)/κ) rounded to the nearer whole number, at
    /// least 1 (a curve that falls from the first worker on, σ ≥ 1, as a sweep on a busy machine can
    /// give, peaks at one worker); nil when it never falls (κ = 0).
    package var peakWorkers: Int? {
        guard coherency > 0 else { return nil }
        return max(1, Int((max(0, 1 - contention) / coherency).squareRoot().rounded()))
    }

    /// The largest relative error of the law's prediction at the measured points.
    package var largestError: Double {
        points.map { abs(speedup(at: $0.workers) / $0.speedup - 1) }.max() ?? 0
    }

    /// The least largest error that any σ ≥ 0 and κ ≥ 0 of the law reach at the measured points: a floor
    /// under every fit of the law to them, where ``largestError`` is this fit's. Where it is large, the
    /// points are not a curve of this law (a bend at the processor count, drift between points), whatever
    /// the fit.
    ///
    /// Within an error t at N means N/(S(1 + t)) − 1 ≤ σ(N − 1) + κN(N − 1) ≤ N/(S(1 − t)) − 1: a band
    /// between two parallel lines in the (σ, κ) plane. The pairs within t at every point are the bands'
    /// intersection with σ, κ ≥ 0, a convex polygon which, when not empty, has a corner where two of its
    /// lines cross. So t is bisected, and each t is tried at every crossing.
    package var leastPossibleError: Double {
        // Each line is a σ + b κ = c; a constraint keeps a σ + b κ at least `low` and, unless nil, at most `high`.
        typealias Constraint = (a: Double, b: Double, low: Double, high: Double?)
        func constraints(within t: Double) -> [Constraint] {
            [(1, 0, 0, nil), (0, 1, 0, nil)]
                + points.map { point in
                    let n = Double(point.workers)
                    return (n - 1, n * (n - 1), n / (point.speedup * (1 + t)) - 1, n / (point.speedup * (1 - t)) - 1)
                }
        }
        func feasible(within t: Double) -> Bool {
            let all = constraints(within: t)
            let lines = all.flatMap { c in [(c.a, c.b, c.low)] + (c.high.map { [(c.a, c.b, $0)] } ?? []) }
            for (index, first) in lines.enumerated() {
                for second in lines[(index + 1)...] {
                    let determinant = first.0 * second.1 - second.0 * first.1
                    guard abs(determinant) > 1e-15 else { continue }
                    let sigma = (first.2 * second.1 - second.2 * first.1) / determinant
                    let kappa = (first.0 * second.2 - second.0 * first.2) / determinant
                    let inside = all.allSatisfy { c in
                        let value = c.a * sigma + c.b * kappa
                        return value >= c.low - 1e-12 && (c.high.map { value <= $0 + 1e-12 } ?? true)
                    }
                    if inside { return true }
                }
            }
            return false
        }
        var (low, high) = (0.0, 1.0)
        for _ in 0..<40 {
            let middle = (low + high) / 2
            if feasible(within: middle) { high = middle } else { low = middle }
        }
        return high
    }
}

extension ScalingModel {
    /// A fit as `sweep --workers`' JSON gives it.
    package struct Export: Encodable, Sendable {
        package let strategy: String
        package let serialFraction: Double
        package let contention: Double
        package let coherency: Double
        /// Null where the fitted curve never falls.
        @OrNull package var peakWorkers: Int?
        package let largestError: Double
        package let leastPossibleError: Double
    }

    /// Each strategy's fit over a sweep's points (worker count, comparison there), in the first point's order.
    package static func fits(_ points: [(workers: Int, comparison: StrategyComparison)]) -> [(String, ScalingModel)] {
        let names = points.first?.comparison.results.map(\.strategy) ?? []
        return names.compactMap { name in
            let times = points.compactMap { point in
                point.comparison.results.first { $0.strategy == name }.map { (point.workers, $0.wall.median) }
            }
            return ScalingModel(times: times).map { (name, $0) }
        }
    }

    /// The table `sweep --workers` prints under its times.
    package static func table(_ fits: [(String, ScalingModel)]) -> String {
        var rows = [["strategy", "Amdahl s", "sigma", "kappa", "peak at", "worst fit", "best possible"]]
        for (name, model) in fits {
            rows.append([
                name, String(format: "%.4f", model.serialFraction), String(format: "%.4f", model.contention),
                String(format: "%.5f", model.coherency), model.peakWorkers.map { "\($0) workers" } ?? "none",
                String(format: "%.1f%%", model.largestError * 100),
                String(format: "%.1f%%", model.leastPossibleError * 100),
            ])
        }
        return ComparisonTable.align(rows, rightAligned: Set(1..<rows[0].count))
            + "\nscaling: Gunther's law S(N) = N / (1 + sigma (N - 1) + kappa N (N - 1)) fitted by least squares to "
            + "N/S - 1 (Amdahl's s with kappa = 0); peak at sqrt((1 - sigma)/kappa) workers; worst fit: the "
            + "largest error of its speedups at the measured points; best possible: the least worst error that any "
            + "sigma and kappa give there"
    }

    /// The export form of `fits`.
    package static func export(_ fits: [(String, ScalingModel)]) -> [Export] {
        fits.map { name, model in
            Export(
                strategy: name, serialFraction: model.serialFraction, contention: model.contention,
                coherency: model.coherency, peakWorkers: model.peakWorkers, largestError: model.largestError,
                leastPossibleError: model.leastPossibleError)
        }
    }
}

extension ScalingModel.Export {
    /// The columns of a sweep's CSV that give each row its strategy's fit, named as the JSON's keys with `scaling_`.
    static let csvHeader =
        "scaling_serial_fraction,scaling_contention,scaling_coherency,scaling_peak_workers,scaling_largest_error,"
        + "scaling_least_possible_error"

    /// Those columns for a row whose strategy has no fit.
    static let emptyCSVFields = ",,,,,"

    /// The fit as those columns; the peak is empty where the fitted curve never falls.
    var csvFields: String {
        [
            String(serialFraction), String(contention), String(coherency), peakWorkers.map(String.init) ?? "",
            String(largestError), String(leastPossibleError),
        ].joined(separator: ",")
    }
}
