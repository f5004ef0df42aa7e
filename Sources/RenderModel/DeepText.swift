import Comparison
import MandelOptions
package import MandelbrotCore

/// How a deep render's serial and parallel parts are reported: the reference orbit and the BLA
/// table run on one thread before any pixel, the pixels on every worker.
package enum DeepText {
    /// The serial parts' share of the wall time.
    package static func serialShare(_ phases: DeepPhases, wallSeconds: Double) -> Double {
        wallSeconds > 0 ? min(1, (phases.orbitSeconds + phases.tableSeconds) / wallSeconds) : 0
    }

    /// Amdahl's bound on the speed-up of `workers` workers with this serial share: 1 / (serial + parallel / workers).
    package static func amdahlBound(serialShare: Double, workers: Int) -> Double {
        1 / (serialShare + (1 - serialShare) / Double(workers))
    }

    /// `perturbation: orbit 1.2 s (600100 steps, 3700 bits), table 0.1 s, pixels 0.5 s; serial 72%, ...`.
    package static func describe(_ phases: DeepPhases, wallSeconds: Double) -> String {
        let serial = serialShare(phases, wallSeconds: wallSeconds)
        let pixels: Double = max(0, wallSeconds - phases.orbitSeconds - phases.tableSeconds)
        let extended: String = phases.extendedExponent ? ", extended exponent" : ""
        let orbit: String =
            "orbit \(NumberFormat.seconds(phases.orbitSeconds)) (\(phases.orbitLength) steps, "
            + "\(phases.precisionBits) bits\(extended))"
        let rest: String =
            "table \(NumberFormat.seconds(phases.tableSeconds)), pixels \(NumberFormat.seconds(pixels))"
        let bound: String = NumberFormat.decimal(amdahlBound(serialShare: serial, workers: 2))
        let share = Int((serial * 100).rounded())
        return "perturbation: \(orbit), \(rest); serial \(share)%, so 2 workers are at most \(bound)x one"
    }
}
