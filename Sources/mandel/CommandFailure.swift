import ArgumentParser
import Foundation
import ImageFiles

/// Prints `mandel: <message>` on standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("mandel: \(message)\n".utf8))
}

/// Exit codes (`sysexits.h`), documented in the README.
enum ExitStatus {
    /// Strategies that should agree produced different pixels: a bug.
    static let internalError = ExitCode(70)

    /// The exit code of a file error.
    static func code(for error: ImageFileError) -> ExitCode { ExitCode(error.exitCode) }
}
