import PNGShim
public import Platform

/// What a path read as input may be: a regular file. Opening a FIFO with no writer, a terminal or
/// a tape would block or act on the device, so every reader checks the kind before it opens, and
/// again (`fstat`) on a descriptor it opened non-blocking.
public enum FileKind {
    /// Why a file of `status`'s kind cannot be `what` (such as "a part"), or nil for a regular file.
    public static func refusal(_ status: stat, for what: String) -> String? {
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFDIR: kind = "a folder"
        default: kind = "a special file"
        }
        return "it is \(kind); \(what) must be a regular file"
    }
}

/// CRC-32 (zlib's), over any number of bytes.
public enum Checksum {
    /// The CRC-32 of `bytes`, continuing `crc` (0 to start).
    public static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress else { return crc }
        return mandel_crc32(crc, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }
}
