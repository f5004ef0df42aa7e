public import Foundation

/// Why `mandel join` refused its parts; nothing is written.
public enum PartJoinError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// A file could not be opened or read (exit code 66, `EX_NOINPUT`).
    case cannotRead(path: String, reason: String)
    /// A file is not a part file at all (exit code 65, `EX_DATAERR`, as for every refused part).
    case notAPart(path: String, reason: String)
    /// A part is truncated, corrupted or of a version this mandel cannot read.
    case damaged(path: String, reason: String)
    /// Two parts that cannot belong together: of different pictures, or cut into different numbers of parts.
    case mismatched(path: String, other: String, reason: String)
    /// One part given twice, under the same name or two.
    case duplicate(path: String, other: String, index: Int, count: Int)
    /// Parts are missing: the first few numbers (``missingShown`` at most), how many are missing, and how many
    /// parts there are.
    case missing(indices: [Int], total: Int, count: Int)

    /// The exit code `mandel join` ends with.
    public var exitCode: Int32 {
        if case .cannotRead = self { 66 } else { 65 }
    }

    /// One line naming the file and what is wrong with it.
    public var description: String {
        switch self {
        case .cannotRead(let path, let reason): "cannot read '\(Display.path(path))': \(reason)"
        case .notAPart(let path, let reason): "'\(Display.path(path))' is not a part file: \(reason)"
        case .damaged(let path, let reason): "'\(Display.path(path))' is damaged: \(reason)"
        case .mismatched(let path, let other, let reason):
            "'\(Display.path(path))' does not belong with '\(Display.path(other))': \(reason)"
        case .duplicate(let path, let other, let index, let count):
            "'\(Display.path(path))' and '\(Display.path(other))' are both part \(index) of \(count); give each part "
                + "once"
        case .missing(let indices, let total, let count):
            (total == 1 ? "part \(indices[0])" : "parts " + Self.list(indices, total: total))
                + " of \(count) \(total == 1 ? "is" : "are") missing (parts count from 0 to \(count - 1))"
        }
    }

    /// The same line, for `LocalizedError` consumers such as the argument parser.
    public var errorDescription: String? { description }

    /// How many missing numbers a message names.
    static let missingShown = 10

    /// Numbers as `1, 2, 5`, the first few of `total` and a count of the rest.
    private static func list(_ indices: [Int], total: Int) -> String {
        let shown = indices.prefix(missingShown).map(String.init).joined(separator: ", ")
        return total > indices.count ? shown + " and \(total - indices.count) more" : shown
    }
}
