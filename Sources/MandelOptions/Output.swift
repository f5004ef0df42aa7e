/// A file an output option names, keyed by what the file holds: code switches over `kind`, never
/// over the option's spelling, which only messages use.
package struct Output<Kind: RawRepresentable<String>> {
    /// What the file holds; its raw value is the option that names it.
    package let kind: Kind
    /// The path the user gave.
    package let path: String

    /// The option and the path, for checks and messages that name the option.
    package var named: (option: String, path: String) { (kind.rawValue, path) }

    /// The outputs among `options` that were given, in order.
    package static func given(_ options: KeyValuePairs<Kind, String?>) -> [Self] {
        options.compactMap { kind, path in path.map { Self(kind: kind, path: $0) } }
    }
}
