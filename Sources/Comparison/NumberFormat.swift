import Foundation

/// How every report prints numbers, so that a figure reads the same in a line, a table and a chart.
package enum NumberFormat {
    /// `0.123 s`, or `4.56 ms` below 10 ms.
    package static func seconds(_ value: Double) -> String {
        value < 0.01 ? String(format: "%.2f ms", value * 1000) : String(format: "%.3f s", value)
    }

    /// Seconds as milliseconds, without the unit, with two to no decimals as the value grows: `4.56`, `45.6`, `456`.
    package static func milliseconds(_ seconds: Double) -> String {
        let value = seconds * 1000
        return value < 10
            ? String(format: "%.2f", value)
            : value < 100 ? String(format: "%.1f", value) : String(format: "%.0f", value)
    }

    /// A rate with three significant figures and an SI prefix: `1.52 G`, `425 M`, `12.3 k`, `7`.
    package static func rate(_ value: Double) -> String {
        let prefixes: [(Double, String)] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        guard let (scale, prefix) = prefixes.first(where: { value >= $0.0 }) else {
            return String(format: "%.0f", value)
        }
        let scaled = value / scale
        let digits = scaled < 10 ? "%.2f" : scaled < 100 ? "%.1f" : "%.0f"
        return String(format: digits, scaled) + " " + prefix
    }

    /// One decimal: `12.3`.
    package static func decimal(_ value: Double) -> String { String(format: "%.1f", value) }

    /// A whole number without a fraction (`4`), anything else as Swift prints it (`0.5`).
    package static func compact(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// A pixel checksum as 16 hexadecimal digits.
    package static func checksum(_ value: UInt64) -> String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
