package import ImageFiles
package import MandelOptions
import Platform

/// Standard output, written directly and checked: a report that could not be written
/// (a full disk, a closed pipe) is an error, not a silent loss.
package enum StandardOutput {
    /// Writes `text` and a newline.
    ///
    /// - Throws: ``ImageFileError`` naming standard output and the cause (EPIPE: its reader has gone).
    package static func line(_ text: String) throws(ImageFileError) {
        var bytes = Array((text + "\n").utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ImageFileError.writeFailure(path: OutputFile.standardOutputName, errno: errno)
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// Where a command's human report goes: standard output, or standard error when a
/// result file (`--json -`) or the picture (`-o -`) takes standard output.
package struct HumanReport {
    package let toStandardError: Bool

    package init(toStandardError: Bool) {
        self.toStandardError = toStandardError
    }

    package func line(_ text: String) throws(ImageFileError) {
        if toStandardError {
            ProcessStart.writeRaw(text + "\n")
        } else {
            try StandardOutput.line(text)
        }
    }
}

extension MeasurementOptions {
    /// Where the human report goes: standard output, unless a result file goes there.
    package var report: HumanReport {
        HumanReport(toStandardError: outputs.contains { OutputFile.namesStandardOutput($0.path) })
    }
}
