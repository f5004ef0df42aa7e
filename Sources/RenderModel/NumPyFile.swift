package import ImageFiles
import MandelOptions
package import MandelbrotCore

/// Escape counts as a NumPy `.npy` file (format version 1.0): little-endian `uint32`, shape (height, width).
package enum NumPyFile {
    /// The header: magic, version, and the array's description padded so that the data starts at a multiple of 64.
    package static func header(width: Int, height: Int) -> [UInt8] {
        var description = "{'descr': '<u4', 'fortran_order': False, 'shape': (\(height), \(width)), }"
        let fixed = 10
        let padded = (fixed + description.utf8.count + 1 + 63) / 64 * 64
        description += String(repeating: " ", count: padded - fixed - description.utf8.count - 1) + "\n"
        let length = description.utf8.count
        return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(length & 0xFF), UInt8(length >> 8)]
            + Array(description.utf8)
    }

    /// The size of the file of `height` rows of `width` counts (`Int.max` past what an `Int` counts).
    package static func bytes(width: Int, height: Int) -> Int {
        let (values, overflow) = width.multipliedReportingOverflow(by: height)
        let (data, tooMany) = values.multipliedReportingOverflow(by: MemoryLayout<UInt32>.size)
        let (total, tooLarge) = data.addingReportingOverflow(header(width: width, height: height).count)
        return overflow || tooMany || tooLarge ? .max : total
    }

    /// Writes the `rows` of `counts` (all of them by default) into `file`, which is put in place
    /// with the run's other outputs.
    package static func write(
        _ counts: IterationCounts, rows: Range<Int>? = nil, to file: OutputFile
    ) throws(ImageFileError) {
        let width = counts.size.width
        let rows = rows ?? 0..<counts.size.height
        try file.write(header(width: width, height: rows.count))
        // x86-64 and arm64 are little-endian: the counts in memory are the file's bytes.
        try counts.withCounts { values throws(ImageFileError) in
            let kept = UnsafeBufferPointer(rebasing: values[(rows.lowerBound * width)..<(rows.upperBound * width)])
            try file.write(UnsafeRawBufferPointer(kept))
        }
        try file.flushAndClose()
    }
}
