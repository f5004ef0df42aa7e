/// Reads a palette from text: a palette's name, or a list of hex colours.
public enum PaletteSpecification {
    /// Why a text was refused.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        /// One line naming what was wrong and what is allowed.
        public let description: String
    }

    /// A named palette, or `#rrggbb` colours separated by commas (at least two), spread evenly over the cycle.
    ///
    /// - Throws: ``Invalid`` naming the problem.
    public static func parse(_ text: String) throws(Invalid) -> Palette {
        if let palette = Palette.named(text) { return palette }
        guard text.contains("#") || text.contains(",") else {
            let names = Palette.named.map(\.name).joined(separator: ", ")
            throw Invalid(
                description:
                    "unknown palette '\(text)'; choose from \(names), or give hex colours such as '#000764,#ffaa00'")
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
        var colors: [(red: UInt8, green: UInt8, blue: UInt8)] = []
        for part in parts {
            guard let color = hexColor(part) else {
                throw Invalid(description: "'\(part)' is not a colour; give each as #rrggbb, such as #206bcb")
            }
            colors.append(color)
        }
        guard colors.count >= 2 else {
            throw Invalid(description: "a custom palette needs at least two colours, such as '#000764,#ffaa00'")
        }
        return Palette(evenlySpaced: colors)
    }

    static func hexColor(_ text: Substring) -> (red: UInt8, green: UInt8, blue: UInt8)? {
        let digits = text.dropFirst()
        guard text.first == "#", digits.count == 6, digits.allSatisfy(\.isHexDigit),
            let value = UInt32(digits, radix: 16)
        else {
            return nil
        }
        return (UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff))
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var result = self
        while result.first?.isWhitespace == true { result = result.dropFirst() }
        while result.last?.isWhitespace == true { result = result.dropLast() }
        return result
    }
}
