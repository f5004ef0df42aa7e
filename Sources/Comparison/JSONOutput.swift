package import Foundation

/// mandel's JSON, for every command that writes it: keys in snake case and sorted, numbers as
/// `JSONEncoder` writes them, `/` unescaped.
package enum JSONOutput {
    /// `value` as one line of JSON, or pretty-printed over several.
    package static func encode(_ value: some Encodable, pretty: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        encoder.keyEncodingStrategy = .convertToSnakeCase
        // Every value mandel writes is finite or marked absent; a failure here is a bug, not an input.
        return try! encoder.encode(value)
    }
}

/// A value whose key is always written, as `null` when it is absent: synthesised `Encodable`
/// leaves an absent optional's key out, and a reader should not have to guess whether a key exists.
@propertyWrapper
package struct OrNull<Value: Encodable>: Encodable {
    package var wrappedValue: Value?

    /// Wraps `wrappedValue`.
    package init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    /// Writes the value, or `null`.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension OrNull: Sendable where Value: Sendable {}

extension Double {
    /// This number, or nil if it is not finite (JSON has no infinity and no NaN).
    package var finiteOrNil: Double? { isFinite ? self : nil }
}
