import Platform

/// A part file opened for reading at offsets: a regular file, whatever the path names.
///
/// The kind is checked before the open, and the open never waits: opening a FIFO with no
/// writer, a terminal or a tape would block or act on the device. A path that names anything
/// but a regular file (after symbolic links) is refused with its kind; one swapped for another
/// kind between the check and the open is opened non-blocking and refused by `fstat`.
struct PartInput {
    let path: String
    let descriptor: Int32
    let size: Int

    init(path: String) throws(PartJoinError) {
        self.path = path
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .cannotRead(path: path, reason: String(cString: strerror(errno)))
        }
        if let kind = Self.kindRefused(status) { throw .cannotRead(path: path, reason: kind) }
        descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .cannotRead(path: path, reason: String(cString: strerror(errno)))
        }
        guard fstat(descriptor, &status) == 0, Self.kindRefused(status) == nil else {
            Glibc.close(descriptor)
            throw .cannotRead(path: path, reason: Self.kindRefused(status) ?? "it is not a regular file")
        }
        size = Int(status.st_size)
    }

    /// Why a file of this kind cannot be a part, or nil for a regular file.
    private static func kindRefused(_ status: stat) -> String? { FileKind.refusal(status, for: "a part") }

    func close() { Glibc.close(descriptor) }

    /// Up to `count` bytes from `offset`: fewer at the end of the file.
    func bytes(at offset: Int, count: Int) throws(PartJoinError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = out.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset + done))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(path: path, reason: String(cString: strerror(errno)))
            }
            if got == 0 { break }
            done += got
        }
        return Array(out.prefix(done))
    }

    /// Exactly `buffer.count` bytes from `offset`.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(PartJoinError) {
        var done = 0
        while done < buffer.count {
            let got = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if got < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(path: path, reason: String(cString: strerror(errno)))
            }
            if got == 0 { throw .damaged(path: path, reason: "it ends early (truncated while being joined)") }
            done += got
        }
    }
}
