import Platform

/// The outputs of one run, published together: every one of them, or none.
///
/// Each output is written to its temporary file first. ``commit()`` then
/// renames them into place one after another; if a rename fails, the ones
/// already moved are put back (a replaced file is kept under a hidden second
/// name until every rename has succeeded), so no run leaves half its outputs.
/// Streams (standard output, FIFOs, devices) are written as they go and
/// cannot be taken back.
public struct OutputSet {
    private let files: [OutputFile]

    public init(_ files: [OutputFile]) { self.files = files }

    /// Closes every output and moves the regular files into place, all or none.
    ///
    /// - Throws: The first ``ImageFileError``; every output is then discarded, and files that were replaced are
    /// restored.
    public func commit() throws(ImageFileError) {
        for file in files where !file.isClosed {
            do { try file.flushAndClose() } catch {
                discard()
                throw error
            }
        }
        var moved: [(file: OutputFile, previous: String?)] = []
        for file in files {
            // A file already put in place on its own (a preview, as soon as it was ready) stays as it is.
            guard let temporary = file.temporaryPath, !file.isInPlace else { continue }
            // Keep the file being replaced under a second name until every rename has succeeded.
            var previous: String? = temporary + ".previous"
            if link(file.destination, previous!) != 0 { previous = nil }
            if let previous { TemporaryFiles.register(previous) }
            guard rename(temporary, file.destination) == 0 else {
                let failure = ImageFileError.writeFailure(path: file.path, errno: errno)
                if let previous { Self.removeName(previous) }
                for (done, kept) in moved.reversed() {
                    if let kept { rename(kept, done.destination) } else { unlink(done.destination) }
                    if let kept { TemporaryFiles.unregister(kept) }
                }
                discard()
                throw failure
            }
            file.isInPlace = true
            TemporaryFiles.unregister(temporary)
            moved.append((file, previous))
        }
        for (_, previous) in moved {
            if let previous { Self.removeName(previous) }
        }
    }

    /// Discards every output that is not yet in place.
    public func discard() { files.forEach { $0.discard() } }

    private static func removeName(_ path: String) {
        unlink(path)
        TemporaryFiles.unregister(path)
    }

    // MARK: - Before anything is opened

    /// The first two of `paths` that name the same file, if any, compared by what they
    /// resolve to (symbolic links, `./x` against `x`, standard output against `/dev/stdout`),
    /// not by their spelling. `/dev/null` may be named any number of times.
    public static func firstSameFile(among paths: [String]) -> (String, String)? {
        // Standard output named twice is one stream twice, even when it is /dev/null.
        if paths.filter(OutputFile.namesStandardOutput).count > 1 {
            return (OutputFile.standardOutputName, OutputFile.standardOutputName)
        }
        var seen: [FileIdentity: String] = [:]
        for path in paths {
            guard let identity = FileIdentity(path) else { continue }
            if let earlier = seen[identity] { return (earlier, path) }
            seen[identity] = path
        }
        return nil
    }
}

/// What a path names: an existing file's device and inode, or a new file's folder and name.
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64
    let name: String?

    init?(_ path: String) {
        // An empty name names nothing: creating it is refused with that reason.
        guard !path.isEmpty else { return nil }
        var status = stat()
        let descriptor = path == OutputFile.standardOutputName ? STDOUT_FILENO : OutputFile.descriptorNamed(by: path)
        let found = descriptor.map { fstat($0, &status) == 0 } ?? (stat(path, &status) == 0)
        if found {
            if status.st_mode & S_IFMT == S_IFCHR, status.st_rdev == Self.nullDevice { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            name = nil
            return
        }
        // A file still to be created: the same folder (by inode) and the same name, after
        // any symbolic links (a dangling link names the file it will create).
        guard let target = try? OutputFile.resolvingLinks(path) else { return nil }
        let (folder, name) = OutputFile.split(target)
        guard stat(folder, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        self.name = name
    }

    /// `/dev/null`'s device number (major 1, minor 3 on Linux), found once.
    private static let nullDevice: UInt64 = {
        var status = stat()
        return stat("/dev/null", &status) == 0 ? UInt64(status.st_rdev) : UInt64.max
    }()
}

extension OutputFile {
    /// Bytes free for this user in the destination's file system; nil for a stream.
    public var availableBytes: Int? {
        guard let folder else { return nil }
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return nil }
        let (bytes, overflow) = Int(info.f_bavail).multipliedReportingOverflow(by: Int(info.f_frsize))
        return overflow ? Int.max : bytes
    }
}
