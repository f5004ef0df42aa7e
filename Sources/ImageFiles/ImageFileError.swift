public import Foundation
import Platform

/// Why an output could not be written.
public enum ImageFileError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The output cannot be created where it was asked for (exit code 73, `EX_CANTCREAT`).
    case cannotCreate(path: String, reason: String)
    /// Writing the output failed part-way (exit code 74, `EX_IOERR`); nothing is left behind.
    case writeFailed(path: String, reason: String)
    /// The process ran out of something the system rations, such as file descriptors
    /// (exit code 71, `EX_OSERR`).
    case outOfResources(path: String, reason: String)
    /// The output is a pipe whose reader has gone (exit code 141, as if SIGPIPE had ended the process).
    case brokenPipe(path: String)

    /// The exit code `mandel` ends with.
    public var exitCode: Int32 {
        switch self {
        case .cannotCreate: 73
        case .writeFailed: 74
        case .outOfResources: 71
        case .brokenPipe: 128 + SIGPIPE
        }
    }

    /// One line naming the output and what went wrong.
    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason): "cannot create \(Self.name(path)): \(reason)"
        case .writeFailed(let path, let reason): "could not write \(Self.name(path)): \(reason)"
        case .outOfResources(let path, let reason): "cannot open \(Self.name(path)): \(reason)"
        case .brokenPipe(let path): "stopped writing \(Self.name(path)): its reader has gone (broken pipe)"
        }
    }

    /// The same line, for `LocalizedError` consumers such as the argument parser.
    public var errorDescription: String? { description }

    private static func name(_ path: String) -> String {
        path == OutputFile.standardOutputName ? "standard output" : "'\(Display.path(path))'"
    }

    /// The error for a failed write to `path`, naming its real cause.
    public static func writeFailure(path: String, errno code: Int32) -> ImageFileError {
        switch code {
        case EPIPE: .brokenPipe(path: path)
        case ENOSPC, EDQUOT: .writeFailed(path: path, reason: "no space left on the device")
        case EFBIG:
            .writeFailed(path: path, reason: "the file would be larger than this process may write ('ulimit -f')")
        case EIO: .writeFailed(path: path, reason: "input/output error")
        default: .writeFailed(path: path, reason: String(cString: strerror(code)))
        }
    }
}
