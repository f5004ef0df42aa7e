#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A file that appears at its path only once it is complete.
///
/// A regular file is written to a hidden temporary file in the same folder
/// and renamed over the destination by ``commit()``: a reader never sees half
/// a picture, and a failed or interrupted write leaves nothing behind. A
/// destination that exists and is not a regular file (a device such as
/// `/dev/stdout` or `/dev/full`, a FIFO) is written in place.
public final class OutputFile {
    /// Where the finished file goes.
    public let path: String
    /// The open stream; valid until ``commit()`` or ``discard()``.
    public let stream: UnsafeMutablePointer<FILE>
    /// The hidden file being written, renamed to ``path`` on commit; nil when writing in place.
    ///
    /// Removing it (which is safe from any thread, even mid-write) is how an
    /// emergency exit leaves nothing behind.
    public let temporaryPath: String?
    private var isOpen = true

    /// Opens a file for writing at `path`.
    ///
    /// - Throws: ``ImageFileError/cannotCreate(path:reason:)`` if the folder
    ///   does not exist or is not writable, or `path` is a folder.
    public init(path: String) throws(ImageFileError) {
        self.path = path
        var status = stat()
        let exists = stat(path, &status) == 0
        if exists && (status.st_mode & S_IFMT) == S_IFDIR {
            throw .cannotCreate(path: path, reason: "it is a directory; give a file name such as '\(path)/mandel.png'")
        }
        if exists && (status.st_mode & S_IFMT) != S_IFREG {
            guard let stream = fopen(path, "wb") else {
                throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
            }
            self.stream = stream
            self.temporaryPath = nil
            return
        }
        let folder = (path as NSString).deletingLastPathComponent
        let directory = folder.isEmpty ? "." : folder
        var folderStatus = stat()
        guard stat(directory, &folderStatus) == 0 else {
            throw .cannotCreate(path: path, reason: "the folder '\(directory)' does not exist")
        }
        guard (folderStatus.st_mode & S_IFMT) == S_IFDIR else {
            throw .cannotCreate(path: path, reason: "'\(directory)' is not a folder")
        }
        let name = (path as NSString).lastPathComponent
        var template = Array("\(directory)/.\(name).XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw .cannotCreate(path: path, reason: "the folder '\(directory)' is not writable (\(String(cString: strerror(errno))))")
        }
        let temporary = String(nulTerminated: template)
        // mkstemp makes the file 0600; give it the usual permissions, less the umask.
        let mask = umask(0)
        umask(mask)
        fchmod(descriptor, 0o666 & ~mask)
        guard let stream = fdopen(descriptor, "wb") else {
            close(descriptor)
            unlink(temporary)
            throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
        }
        self.stream = stream
        self.temporaryPath = temporary
    }

    deinit { discard() }

    /// Closes the file and moves it into place.
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)`` if the data
    ///   could not be flushed or renamed; the partial file is removed.
    public func commit() throws(ImageFileError) {
        precondition(isOpen, "an output file is committed or discarded once")
        isOpen = false
        let flushed = fflush(stream) == 0 && ferror(stream) == 0
        let failure = errno
        let closed = fclose(stream) == 0
        guard flushed && closed else {
            if let temporaryPath { unlink(temporaryPath) }
            let reason = failure == ENOSPC ? "no space left on the device" : String(cString: strerror(failure))
            throw .writeFailed(path: path, reason: reason)
        }
        if let temporaryPath, rename(temporaryPath, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw .writeFailed(path: path, reason: reason)
        }
    }

    /// Closes the file and removes whatever was written (for a regular file); safe to call more than once.
    public func discard() {
        guard isOpen else { return }
        isOpen = false
        fclose(stream)
        if let temporaryPath { unlink(temporaryPath) }
    }
}

extension OutputFile {
    /// Writes `bytes` and commits: the whole file appears at once, or nothing does.
    ///
    /// - Throws: ``ImageFileError/writeFailed(path:reason:)``.
    public func write(_ bytes: [UInt8]) throws(ImageFileError) {
        guard fwrite(bytes, 1, bytes.count, stream) == bytes.count else {
            let reason = errno == ENOSPC ? "no space left on the device" : String(cString: strerror(errno))
            discard()
            throw .writeFailed(path: path, reason: reason)
        }
        try commit()
    }
}
