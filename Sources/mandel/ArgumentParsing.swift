import ArgumentParser
import Foundation
import MandelbrotCore

/// Parses the `WxH` / `N` strings of `--size` and `--tile`, and `--center`'s `re,im`.
enum ArgumentParsing {
    /// `WxH` or `N` (square), each side from 1 to `maximum`.
    static func dimensions(_ text: String, option: String, maximum: Int) throws -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let sides = parts.map { Int($0) }
        guard (1...2).contains(parts.count), !sides.contains(nil) else {
            throw ValidationError("\(option) must be WxH or N with whole numbers (got '\(text)')")
        }
        let width = sides[0]!, height = sides.count == 2 ? sides[1]! : sides[0]!
        guard (1...maximum).contains(width), (1...maximum).contains(height) else {
            throw ValidationError("\(option) sides must be from 1 to \(maximum) (got '\(text)')")
        }
        return (width, height)
    }

    /// A comma-separated list of positive whole numbers, each at most `maximum`.
    static func numberList(_ text: String, option: String, maximum: Int) throws -> [Int] {
        let values = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ $0 != nil && (1...maximum).contains($0!) }) else {
            throw ValidationError("\(option) must be a comma-separated list of whole numbers from 1 to \(maximum) (got '\(text)')")
        }
        return values.map { $0! }
    }

    /// `re,im`, both finite: `--center`.
    static func center(_ text: String) throws -> (real: Double, imaginary: Double) {
        try complexNumber(text, option: "--center", example: "-0.5,0")
    }

    /// `re,im`, both finite.
    static func complexNumber(_ text: String, option: String, example: String = "-0.8,0.156") throws -> (real: Double, imaginary: Double) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let real = Double(parts[0].trimmingCharacters(in: .whitespaces)),
              let imaginary = Double(parts[1].trimmingCharacters(in: .whitespaces))
        else {
            throw ValidationError("\(option) must be two numbers re,im such as \(example) (got '\(text)')")
        }
        guard real.isFinite, imaginary.isFinite else {
            throw ValidationError("\(option) must be finite (got '\(text)')")
        }
        return (real, imaginary)
    }
}
