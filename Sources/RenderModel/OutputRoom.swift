package import ImageFiles
import MandelbrotCore
import Platform

/// Outputs whose size is known before the work starts, checked against the free space of their
/// file systems first: a shortfall is one line and exit 73 up front, never the work done and
/// then exit 74 from a full disk. Outputs that share a file system are counted together.
package enum OutputRoom {
    /// An output and the bytes it will take (at least).
    package struct Need {
        package let file: OutputFile
        package let bytes: Int
        /// What takes the bytes, as the message starts: "a 1200x800 PNG takes at least".
        package let what: String

        package init(file: OutputFile, bytes: Int, what: String) {
            self.file = file
            self.bytes = bytes
            self.what = what
        }
    }

    /// Refuses the first output whose file system has less free space than it and the other
    /// outputs there need. A stream (standard output, a FIFO, a device) needs no room.
    ///
    /// - Throws: ``ImageFileError/cannotCreate(path:reason:)`` with the numbers.
    package static func check(_ needs: [Need]) throws(ImageFileError) {
        let devices = needs.map { need -> UInt64? in
            var status = stat()
            guard let folder = need.file.folder, stat(folder, &status) == 0 else { return nil }
            return UInt64(status.st_dev)
        }
        for (need, device) in zip(needs, devices) {
            guard let device, let free = need.file.availableBytes else { continue }
            let together = zip(needs, devices).filter { $0.1 == device }.reduce(0) { sum, other in
                let (total, overflow) = sum.addingReportingOverflow(other.0.bytes)
                return overflow ? Int.max : total
            }
            guard together > free else { continue }
            let others = together > need.bytes ? " (\(ByteCount(together)) with the other outputs there)" : ""
            throw .cannotCreate(
                path: need.file.path,
                reason:
                    "\(need.what) \(ByteCount(need.bytes))\(others), and its file system has \(ByteCount(free)) free")
        }
    }
}
