public import Foundation

/// Why an image file could not be written.
public enum ImageFileError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The file cannot be created where it was asked for (exit code 73, `EX_CANTCREAT`).
    case cannotCreate(path: String, reason: String)
    /// Writing the file failed part-way (exit code 74, `EX_IOERR`); nothing is left behind.
    case writeFailed(path: String, reason: String)

    /// The `sysexits.h` code that `mandel` exits with.
    public var exitCode: Int32 {
        switch self {
        case .cannotCreate: 73
        case .writeFailed: 74
        }
    }

    /// One line naming the file and what went wrong.
    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason): "cannot create '\(path)': \(reason)"
        case .writeFailed(let path, let reason): "could not write '\(path)': \(reason)"
        }
    }

    /// The same line, for `LocalizedError` consumers such as the argument parser.
    public var errorDescription: String? { description }
}
