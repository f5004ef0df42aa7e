import ArgumentParser
import Foundation
package import MandelbrotCore

/// The one rule every option value follows, documented in the README ("Options").
///
/// - Spaces and tabs around a value, and around each item of a list, are ignored.
/// - Numbers are decimal: `12`, `-0.5`, `2.5e-3`. Hexadecimal (`0x1p3`), `inf`, `nan`
///   and digit separators are refused everywhere.
/// - A list is comma-separated: `1,2,4`, `-0.5, 0`.
/// - A size is `WxH` or `N` (N×N), whole numbers, `x` in either case.
///
/// A value that does not follow the rule is refused by the parser, which names the option
/// ("The value 'x' is invalid for '--zoom <zoom>': …"); a value that follows it but is out
/// of range is refused by the command's `validate()`, which names the range.
package enum ValueParsing {
    /// Why a value was refused: the allowed form, with an example.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// A whole number, such as `-12` or `4`.
    package static func integer(_ text: some StringProtocol) throws -> Int {
        try integer(text, allowed: nil)
    }

    /// A whole number, as ``integer(_:)``; one past `Int`'s range is refused with the option's own range,
    /// `allowed` ("from 1 to 4294967294"), where the option names one.
    package static func integer(_ text: some StringProtocol, allowed: String?) throws -> Int {
        let trimmed = text.trimmingBlanks
        guard isDecimal(trimmed, fraction: false) else {
            throw Refusal(description: "give a whole number such as 4")
        }
        guard let value = Int(trimmed) else {
            guard let allowed else {
                throw Refusal(
                    description: "out of range: whole numbers run from \(Int.min) to \(Int.max), and each "
                        + "option's own range is narrower (see --help)")
            }
            throw Refusal(description: "out of range: give a whole number \(allowed)")
        }
        return value
    }

    /// `K/N` (piece K, from 0, of N) or `auto`, for `--part` and `--frame`; whether K < N is checked later,
    /// beside `--parts` and the engine's variables.
    package static func indexChoice(_ text: some StringProtocol) throws -> IndexChoice {
        let trimmed = text.trimmingBlanks
        if trimmed == "auto" { return .auto }
        let pieces = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard pieces.count == 2 else {
            throw Refusal(description: "give K/N (piece K, from 0, of N), such as 0/4, or auto")
        }
        if pieces.contains(where: { $0.hasPrefix("-") }) {
            throw Refusal(description: "K counts from 0 to N − 1 and N from 1: give K/N such as 0/4, or auto")
        }
        guard pieces.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            throw Refusal(description: "give K/N in digits alone, such as 0/4, or auto")
        }
        guard let index = Int(pieces[0]), let count = Int(pieces[1]) else {
            throw Refusal(description: "out of range: K and N run from 0 to \(Int.max)")
        }
        return .fixed(index: index, count: count)
    }

    /// A real number in decimal notation, such as `-0.5` or `2.5e-3`.
    package static func real(_ text: some StringProtocol) throws -> Double {
        let trimmed = text.trimmingBlanks
        guard isDecimal(trimmed, fraction: true), let value = Double(trimmed) else {
            throw Refusal(description: "give a decimal number such as 2.5 or 1e-3")
        }
        return value
    }

    /// Comma-separated items, each read by `item`.
    package static func list<Item>(_ text: some StringProtocol, item: (Substring) throws -> Item) throws -> [Item] {
        try String(text).split(separator: ",", omittingEmptySubsequences: false).map { try item($0) }
    }

    /// The first value of `values` that an earlier one equals, if any: a list item given twice.
    package static func firstRepeated<Value: Equatable>(_ values: [Value]) -> Value? {
        values.indices.first { values[..<$0].contains(values[$0]) }.map { values[$0] }
    }

    /// Comma-separated words, each one of `Word`'s cases; `kind` names them in the refusal.
    package static func words<Word: CaseIterable & RawRepresentable<String>>(
        _ text: some StringProtocol, kind: String
    ) throws
        -> [Word]
    {
        try list(text) { item in
            guard let word = Word(rawValue: spelling(item)) else {
                throw Refusal(
                    description: "unknown \(kind) '\(item.trimmingBlanks)'; choose from "
                        + Word.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return word
        }
    }

    /// Other spellings of a word that an option takes: `center` is `centre`, beside the option `--center`.
    package static let otherSpellings = ["center": "centre"]

    /// The word `text` names, without its blanks and in the spelling the program uses.
    package static func spelling(_ text: some StringProtocol) -> String {
        let word = String(text.trimmingBlanks)
        return otherSpellings[word] ?? word
    }

    /// `WxH` or `N`, each side from 1 to `maximum`.
    package static func size(_ text: some StringProtocol, maximum: Int = Limits.maximumSide) throws -> PixelSize {
        let parts = text.trimmingBlanks.split(omittingEmptySubsequences: false) { $0 == "x" || $0 == "X" }
        guard (1...2).contains(parts.count), parts.allSatisfy({ isDecimal($0.trimmingBlanks, fraction: false) })
        else {
            throw Refusal(description: "give WxH or N with whole numbers, such as 1200x800 or 64")
        }
        let sides = try parts.map { part in
            guard let side = Int(part.trimmingBlanks) else {
                throw Refusal(description: "out of range: give WxH or N, each side from 1 to \(maximum)")
            }
            return side
        }
        let width = sides[0]
        let height = sides.count == 2 ? sides[1] : sides[0]
        guard (1...maximum).contains(width), (1...maximum).contains(height) else {
            throw Refusal(description: "sides must be from 1 to \(maximum)")
        }
        return PixelSize(width: width, height: height)
    }

    /// `X,Y,W,H`: a window of a picture's pixel grid, W×H pixels from pixel (X, Y), which may lie
    /// outside the picture (the grid goes on past its edges); |X|, |Y| and the sides at most `maximum`.
    package static func window(_ text: some StringProtocol, maximum: Int = Limits.maximumSide) throws -> PixelWindow {
        let parts = String(text).split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 4, let values = try? parts.map({ try integer($0) }) else {
            throw Refusal(description: "give X,Y,W,H with whole numbers, such as 512,256,256,256")
        }
        guard values[0...1].allSatisfy({ abs($0) <= maximum }), values[2...3].allSatisfy({ (1...maximum).contains($0) })
        else {
            throw Refusal(description: "X and Y must be from -\(maximum) to \(maximum), W and H from 1 to \(maximum)")
        }
        return PixelWindow(x: values[0], y: values[1], width: values[2], height: values[3])
    }

    /// `re,im`: two decimal numbers.
    package static func complex(_ text: some StringProtocol) throws -> ComplexValue {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let realPart = try? real(parts[0]), let imaginaryPart = try? real(parts[1]) else {
            throw Refusal(description: "give two decimal numbers re,im such as -0.5,0")
        }
        return ComplexValue(
            real: realPart, imaginary: imaginaryPart, realText: String(parts[0].trimmingBlanks),
            imaginaryText: String(parts[1].trimmingBlanks))
    }

    /// A decimal number kept as typed (for views deeper than `Double`), with its nearest `Double`.
    package static func decimal(_ text: some StringProtocol) throws -> DecimalValue {
        DecimalValue(value: try real(text), text: String(text.trimmingBlanks))
    }

    /// Whether `text` is a decimal number: an optional sign, digits with an optional
    /// fraction (when `fraction`), and an optional exponent.
    private static func isDecimal(_ text: Substring, fraction: Bool) -> Bool {
        var characters = text.utf8[...]
        if let sign = characters.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            characters = characters.dropFirst()
        }
        func digits() -> Int {
            let count = characters.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
            characters = characters.dropFirst(count)
            return count
        }
        var count = digits()
        if fraction, characters.first == UInt8(ascii: ".") {
            characters = characters.dropFirst()
            count += digits()
        }
        guard count > 0 else { return false }
        if fraction, let exponent = characters.first, exponent == UInt8(ascii: "e") || exponent == UInt8(ascii: "E") {
            characters = characters.dropFirst()
            if let sign = characters.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                characters = characters.dropFirst()
            }
            guard digits() > 0 else { return false }
        }
        return characters.isEmpty
    }
}

/// A complex number as typed: `--center`'s and `--julia`'s `re,im`.
package struct ComplexValue: Hashable {
    package var real: Double
    package var imaginary: Double
    /// The parts as typed, every digit kept.
    package var realText = ""
    package var imaginaryText = ""

    package init(real: Double, imaginary: Double, realText: String = "", imaginaryText: String = "") {
        (self.real, self.imaginary, self.realText, self.imaginaryText) = (real, imaginary, realText, imaginaryText)
    }

    package var isFinite: Bool { real.isFinite && imaginary.isFinite }
}

/// A window of a picture's pixel grid: `--window X,Y,W,H`.
package struct PixelWindow: Hashable, CustomStringConvertible {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// `X,Y,W,H`, as the option takes it.
    package var description: String { "\(x),\(y),\(width),\(height)" }
}

/// A decimal number as typed, and the nearest `Double` (infinite or zero beyond its range).
package struct DecimalValue: Hashable {
    package var value: Double
    package var text: String

    package init(value: Double, text: String) {
        self.value = value
        self.text = text
    }

    /// 10^`exponent`: as the shortest `Double` text where a normal `Double` holds it, else as a
    /// mantissa and a decimal exponent (`3.16e-400`, `1.2e1086`), with the `Double` 0 or infinity.
    package init(decimalExponent exponent: Double) {
        let value = pow(10, exponent)
        if value.isNormal && value.isFinite {
            self.init(value: value, text: "\(value)")
            return
        }
        var whole = exponent.rounded(.down)
        var mantissa = pow(10, exponent - whole)
        if mantissa >= 10 {
            mantissa /= 10
            whole += 1
        }
        self.init(value: whole > 0 ? .infinity : 0, text: "\(mantissa)e\(Int(whole))")
    }
}

extension StringProtocol {
    /// Without the spaces and tabs around it.
    package var trimmingBlanks: Substring {
        let text = self[...]
        let start = text.firstIndex { $0 != " " && $0 != "\t" } ?? text.endIndex
        let end = text.lastIndex { $0 != " " && $0 != "\t" }.map(text.index(after:)) ?? start
        return Substring(text[start..<end])
    }
}
