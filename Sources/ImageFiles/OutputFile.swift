public import Platform

/// A file that appears at its path only once it is complete.
///
/// What happens depends on what the path names:
/// - **a regular file, or nothing yet**: the data goes to a hidden temporary
///   file in the same folder, renamed over the destination by ``commit()``
///   (through ``OutputSet``, together with a run's other outputs). A reader
///   never sees half a file; a failure or a signal leaves nothing behind; a
///   replaced file keeps its permissions.
/// - **a symbolic link**: the file it points to is replaced the same way; the link stays.
/// - **`-`**: standard output, written as it comes; so are `/dev/stdout`, `/dev/fd/1` and
///   `/proc/self/fd/1`, which name the same stream. `/dev/stderr` and any other `/dev/fd/N`
///   (a shell's `>(command)`) are the open descriptor they name, written as it comes;
///   `/dev/stdin` is refused.
/// - **a FIFO or a character device** (`/dev/null`, a terminal): written in
///   place, as it comes. A FIFO that no process is reading is refused at once
///   rather than waited for.
/// - a folder, a block device or a socket: refused.
///
/// Streams (standard output, FIFOs, devices) cannot take back what was
/// written; everything else is all or nothing.
public final class OutputFile {
    /// The path as the user gave it.
    public let path: String
    /// Where the finished file goes: `path`, or the file a symbolic link points to.
    public let destination: String
    /// The open stream; valid until ``commit()`` or ``discard()``.
    public let stream: UnsafeMutablePointer<FILE>
    /// The hidden file being written, renamed to ``destination`` on commit; nil for a stream.
    public let temporaryPath: String?
    /// The folder that will hold the file (nil for a stream): where free space matters.
    public let folder: String?
    private var isOpen = true

    /// What the user typed for standard output.
    public static let standardOutputName = "-"

    /// Whether `path` names standard output: `-`, or a name of descriptor 1 (`/dev/stdout`, `/dev/fd/1`).
    public static func namesStandardOutput(_ path: String) -> Bool {
        path == standardOutputName || descriptorNamed(by: path) == STDOUT_FILENO
    }

    /// The open descriptor that `path` names by itself, whatever that descriptor is (a pipe,
    /// a terminal, a file a shell opened): `/dev/stdout`, `/dev/stderr`, `/dev/stdin`, `/dev/fd/N`,
    /// `/proc/self/fd/N`. Following such a name as a link would find the file behind the
    /// descriptor (or no file at all, for a pipe) and replace it instead of writing to the stream.
    public static func descriptorNamed(by path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return STDIN_FILENO
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default: break
        }
        for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/\(getpid())/fd/"]
        where path.hasPrefix(prefix) {
            let number = path.dropFirst(prefix.count)
            guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber),
                let descriptor = Int32(number)
            else { return nil }
            return descriptor
        }
        return nil
    }

    /// Whether this output is a stream (standard output, a FIFO, a device), written in place.
    public var isStream: Bool { temporaryPath == nil }

    /// Opens `path` for writing without ever blocking.
    ///
    /// - Throws: ``ImageFileError/cannotCreate(path:reason:)`` naming why the path cannot work,
    ///   or ``ImageFileError/outOfResources(path:reason:)`` when the process has no descriptor left.
    public init(path: String) throws(ImageFileError) {
        self.path = path
        if let named = path == Self.standardOutputName ? STDOUT_FILENO : Self.descriptorNamed(by: path) {
            guard named != STDIN_FILENO else {
                throw .cannotCreate(
                    path: path, reason: "it is standard input; give a file name, or - for standard output")
            }
            let descriptor = dup(named)
            guard descriptor >= 0, let stream = fdopen(descriptor, "wb") else {
                throw Self.openFailure(path: path, errno: errno, folder: nil)
            }
            self.stream = stream
            destination = path
            temporaryPath = nil
            folder = nil
            memory = nil
            return
        }
        guard !path.isEmpty else { throw .cannotCreate(path: path, reason: "the name is empty") }
        guard !path.hasSuffix("/") else {
            throw .cannotCreate(path: path, reason: "a name that ends in '/' names a folder; give a file name")
        }
        let target = try Self.resolvingLinks(path)
        destination = target
        var status = stat()
        let exists = stat(target, &status) == 0
        if exists {
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                guard access(target, W_OK) == 0, status.st_mode & 0o222 != 0 else {
                    throw .cannotCreate(
                        path: path, reason: "the file is read-only; make it writable (chmod u+w) or remove it first")
                }
            case S_IFDIR:
                throw .cannotCreate(
                    path: path, reason: "it is a folder; give a file name such as '\(Display.path(path))/mandel.png'")
            case S_IFIFO, S_IFCHR:
                stream = try Self.openInPlace(path: path, target: target, isFIFO: status.st_mode & S_IFMT == S_IFIFO)
                temporaryPath = nil
                folder = nil
                memory = nil
                return
            case S_IFBLK:
                throw .cannotCreate(path: path, reason: "it is a block device; give a file name")
            default:
                throw .cannotCreate(path: path, reason: "it is a socket or another special file; give a file name")
            }
        }
        let (folder, name) = Self.split(target)
        self.folder = folder
        let (stream, temporary) = try Self.createTemporary(
            in: folder, for: name, path: path, replacing: status, exists: exists)
        self.stream = stream
        temporaryPath = temporary
        memory = nil
        TemporaryFiles.register(temporary)
    }

    /// Where a file in memory keeps its bytes (``init(inMemoryNamed:)``); nil for any other.
    private let memory: MemoryBuffer?

    /// The bytes of a file in memory, grown by the C library as it is written.
    private final class MemoryBuffer {
        let start = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 1)
        let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)

        init() {
            start.initialize(to: nil)
            count.initialize(to: 0)
        }

        deinit {
            free(start.pointee)
            start.deallocate()
            count.deallocate()
        }
    }

    /// A file in memory, for bytes that go elsewhere than a path (a server's response): written as
    /// a stream, and read back with ``bytes`` once closed. `name` is what messages call it.
    ///
    /// - Throws: ``ImageFileError/outOfResources(path:reason:)`` if the C library cannot open it.
    public init(inMemoryNamed name: String) throws(ImageFileError) {
        let buffer = MemoryBuffer()
        guard let stream = open_memstream(buffer.start, buffer.count) else {
            throw .outOfResources(path: name, reason: "no memory for the file")
        }
        self.path = name
        destination = name
        self.stream = stream
        temporaryPath = nil
        folder = nil
        memory = buffer
    }

    /// What was written to a file in memory, once ``flushAndClose()`` has returned; nil for a
    /// file on a path, or one still open.
    public var bytes: [UInt8]? {
        guard let memory, !isOpen, let start = memory.start.pointee else { return nil }
        return start.withMemoryRebound(to: UInt8.self, capacity: memory.count.pointee) {
            Array(UnsafeBufferPointer(start: $0, count: memory.count.pointee))
        }
    }

    deinit { discard() }

    // MARK: - Opening

    /// Follows symbolic links from `path` to the path of the file they name (which need not exist yet).
    static func resolvingLinks(_ path: String) throws(ImageFileError) -> String {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count >= 0 else { throw openFailure(path: path, errno: errno, folder: nil) }
            let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : split(current).folder + "/" + link
        }
        throw .cannotCreate(path: path, reason: "too many levels of symbolic links")
    }

    /// Opens a FIFO or a device for writing in place. A FIFO is opened non-blocking: with no
    /// reader that fails at once (ENXIO) instead of waiting; with one, writes then block as usual.
    private static func openInPlace(
        path: String, target: String, isFIFO: Bool
    ) throws(ImageFileError) -> UnsafeMutablePointer<FILE> {
        let descriptor = open(target, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            if isFIFO && errno == ENXIO {
                throw .cannotCreate(
                    path: path, reason: "it is a FIFO that no process is reading; start the reader first")
            }
            throw openFailure(path: path, errno: errno, folder: nil)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        guard let stream = fdopen(descriptor, "wb") else {
            let failure = errno
            close(descriptor)
            throw openFailure(path: path, errno: failure, folder: nil)
        }
        return stream
    }

    /// Creates the hidden temporary file beside the destination, with the replaced file's mode
    /// (or the usual one for a new file).
    private static func createTemporary(
        in folder: String, for name: String, path: String, replacing existing: stat, exists: Bool
    ) throws(ImageFileError) -> (UnsafeMutablePointer<FILE>, String) {
        var folderStatus = stat()
        guard stat(folder, &folderStatus) == 0 else {
            throw openFailure(path: path, errno: errno, folder: folder)
        }
        guard folderStatus.st_mode & S_IFMT == S_IFDIR else {
            throw .cannotCreate(path: path, reason: "'\(Display.path(folder))' is not a folder")
        }
        guard name.utf8.count <= Int(NAME_MAX) else {
            throw .cannotCreate(
                path: path,
                reason: "the name is \(name.utf8.count) bytes long; a file name may have at most \(NAME_MAX)")
        }
        // ".<name>.XXXXXX" must fit in a name too: long names are shortened in the temporary one.
        let stem = String(decoding: name.utf8.prefix(Int(NAME_MAX) - 16), as: UTF8.self)
        var template = Array("\(folder)/.\(stem).XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            // The folder exists (checked above): a missing entry now means its file system takes no new files (/proc,
            // /sys).
            if errno == ENOENT {
                throw .cannotCreate(
                    path: path, reason: "the folder '\(Display.path(folder))' does not accept new files")
            }
            throw openFailure(path: path, errno: errno, folder: folder)
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if exists {
            // Keep what the user set on the file being replaced.
            fchmod(descriptor, existing.st_mode & 0o7777)
            if geteuid() == 0 { _ = fchown(descriptor, existing.st_uid, existing.st_gid) }
        } else {
            // mkstemp makes the file 0600; give it the usual permissions, less the umask.
            let mask = umask(0)
            umask(mask)
            fchmod(descriptor, 0o666 & ~mask)
        }
        guard let stream = fdopen(descriptor, "wb") else {
            let failure = errno
            close(descriptor)
            unlink(temporary)
            throw openFailure(path: path, errno: failure, folder: folder)
        }
        return (stream, temporary)
    }

    /// The folder and the name of a path (`.` for a bare name).
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// The error for a failed open or create, naming its real cause.
    static func openFailure(path: String, errno code: Int32, folder: String?) -> ImageFileError {
        let place = folder.map { "'\(Display.path($0))'" } ?? "its folder"
        switch code {
        case EMFILE, ENFILE:
            return .outOfResources(
                path: path,
                reason:
                    "too many open files (the limit is \(ResourceLimits.fileDescriptors(raisingTo: 0)); raise it with "
                    + "'ulimit -n')"
            )
        case ENOENT: return .cannotCreate(path: path, reason: "the folder \(place) does not exist")
        case ENOTDIR: return .cannotCreate(path: path, reason: "a part of the path is not a folder")
        case EACCES, EPERM:
            return .cannotCreate(
                path: path, reason: "permission denied: the folder \(place) is not writable by this user")
        case EROFS: return .cannotCreate(path: path, reason: "the file system is read-only")
        case ENOSPC, EDQUOT: return .cannotCreate(path: path, reason: "no space left on the device")
        case ENAMETOOLONG: return .cannotCreate(path: path, reason: "the path is too long")
        case ELOOP: return .cannotCreate(path: path, reason: "too many levels of symbolic links")
        default: return .cannotCreate(path: path, reason: String(cString: strerror(code)))
        }
    }

    // MARK: - Writing

    /// Writes `bytes` to the stream.
    ///
    /// - Throws: ``ImageFileError`` naming the cause; the file is then discarded.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ImageFileError) {
        guard bytes.count > 0 else { return }
        guard fwrite(bytes.baseAddress, 1, bytes.count, stream) == bytes.count else {
            let failure = writeFailure(errno: errno)
            discard()
            throw failure
        }
    }

    /// Writes `bytes` to the stream.
    public func write(_ bytes: [UInt8]) throws(ImageFileError) {
        let result: Result<Void, ImageFileError> = bytes.withUnsafeBytes { raw in
            do throws(ImageFileError) { try write(raw) } catch { return .failure(error) }
            return .success(())
        }
        try result.get()
    }

    /// The error for a failed write, naming its real cause.
    public func writeFailure(errno code: Int32) -> ImageFileError {
        ImageFileError.writeFailure(path: path, errno: code)
    }

    /// Flushes and closes the stream; the data is complete but not yet in place.
    ///
    /// - Throws: ``ImageFileError`` if the data could not be flushed; the file is then discarded.
    public func flushAndClose() throws(ImageFileError) {
        precondition(isOpen, "an output file is closed once")
        isOpen = false
        let flushed = fflush(stream) == 0 && ferror(stream) == 0
        let failure = errno
        let closed = fclose(stream) == 0
        guard flushed && closed else {
            removeTemporary()
            throw writeFailure(errno: flushed ? errno : failure)
        }
    }

    /// Closes the file if it is still open and moves it into place: for a run's only output.
    ///
    /// - Throws: ``ImageFileError``; the partial file is removed.
    public func commit() throws(ImageFileError) {
        try OutputSet([self]).commit()
    }

    /// Closes the file and removes whatever was written to a regular file; safe to call more than once.
    public func discard() {
        if isOpen {
            isOpen = false
            fclose(stream)
        }
        removeTemporary()
    }

    var isClosed: Bool { !isOpen }

    /// Removes the temporary file, unless it has been moved into place.
    func removeTemporary() {
        guard let temporaryPath, !isInPlace else { return }
        unlink(temporaryPath)
        TemporaryFiles.unregister(temporaryPath)
    }

    /// Set once the temporary file has been renamed to the destination.
    var isInPlace = false
}
