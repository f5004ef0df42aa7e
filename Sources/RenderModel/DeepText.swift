import Comparison
import Foundation
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

    /// The orbit's microseconds a step, or nil where the render took an orbit computed before.
    package static func stepMicroseconds(_ phases: DeepPhases) -> Double? {
        phases.orbitSeconds > 0 && phases.orbitLength > 0 ? phases.orbitSeconds * 1e6 / Double(phases.orbitLength) : nil
    }

    /// `perturbation: orbit 1.2 s (600100 steps, 2.0 µs each at 3700 bits), table 0.1 s, pixels 0.5 s;
    /// serial 72%, so 2 workers are at most 1.2x one`; an orbit computed before (a zoom's earlier
    /// frame, a file, a kept reference) is "orbit computed before (600100 steps, 3700 bits)".
    package static func describe(_ phases: DeepPhases, wallSeconds: Double, workers: Int) -> String {
        let serial = serialShare(phases, wallSeconds: wallSeconds)
        let pixels: Double = max(0, wallSeconds - phases.orbitSeconds - phases.tableSeconds)
        let extended: String =
            (phases.extendedExponent ? ", extended exponent" : "")
            + (phases.orbitPeriod.map { ", period \($0)" } ?? "")
        let orbit: String
        if let step = stepMicroseconds(phases) {
            orbit =
                "orbit \(NumberFormat.seconds(phases.orbitSeconds)) (\(phases.orbitLength) steps, "
                + "\(String(format: "%.2f", step)) µs each at \(phases.precisionBits) bits\(extended))"
        } else {
            orbit = "orbit computed before (\(phases.orbitLength) steps, \(phases.precisionBits) bits\(extended))"
        }
        let rest: String =
            "table \(NumberFormat.seconds(phases.tableSeconds)), pixels \(NumberFormat.seconds(pixels))"
        let bound: String = NumberFormat.decimal(amdahlBound(serialShare: serial, workers: workers))
        let share = Int((serial * 100).rounded())
        let who = workers == 1 ? "1 worker is" : "\(workers) workers are"
        return "perturbation: \(orbit), \(rest); serial \(share)%, so \(who) at most \(bound)x one"
    }
}
