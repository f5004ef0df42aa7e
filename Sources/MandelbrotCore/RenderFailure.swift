import Platform

/// Why a render could not run: the machine, not the job, said no.
public enum RenderFailure: Error, Equatable, CustomStringConvertible {
    /// Memory for `purpose` could not be had: `bytes` were needed, and `available` could be
    /// had at most (nil when the allocation itself failed).
    case outOfMemory(bytes: Int, purpose: String, available: Int?)
    /// The strategy needs `needed` threads, and the process may start only `available` more.
    case threadsUnavailable(needed: Int, available: Int)
    /// The system refused to start a thread (`pthread_create` returned `code`).
    case threadNotStarted(code: Int32)
    /// Helper processes kept failing (the `process` strategy): the reason, in words.
    case helpersFailed(String)

    /// The exit status that reports this failure: 69 when helpers kept failing, 71 otherwise.
    public var exitCode: Int32 {
        if case .helpersFailed = self { 69 } else { 71 }
    }

    /// One line naming what was missing and how much.
    public var description: String {
        switch self {
        case .outOfMemory(let bytes, let purpose, let available?):
            "not enough memory: \(purpose) needs \(ByteCount(bytes)), and this process can have "
                + "\(ByteCount(available)) more"
        case .outOfMemory(let bytes, let purpose, nil):
            "out of memory: \(ByteCount(bytes)) for \(purpose) could not be allocated"
        case .threadsUnavailable(let needed, let available):
            "cannot start the \(needed) threads this render needs: this user may start only \(available) more "
                + "('ulimit -u' counts threads); lower --workers or raise the limit"
        case .threadNotStarted(let code):
            "the system refused to start a thread (error \(code): "
                + "\(code == 11 ? "resource temporarily unavailable" : "see pthread_create(3)"))"
        case .helpersFailed(let reason): "helper processes kept failing: \(reason)"
        }
    }
}

/// A number of bytes as people read it: `512 B`, `3.0 MiB`, `1.5 GiB`, `2.0 TiB`.
public struct ByteCount: CustomStringConvertible, Sendable {
    public let bytes: Int

    public init(_ bytes: Int) { self.bytes = bytes }

    public var description: String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : "\((value * 10).rounded() / 10) \(units[unit])"
    }
}

/// Allocations whose failure is an answer, not a crash: every buffer that grows with the picture.
enum FallibleAllocation {
    /// `count` zeroed values of `T` from the system allocator; return it with ``release(_:)``.
    ///
    /// - Throws: ``RenderFailure/outOfMemory(bytes:purpose:available:)`` if the size overflows or the system says no.
    static func zeroed<T>(
        _ type: T.Type, count: Int, for purpose: String
    ) throws(RenderFailure)
        -> UnsafeMutableBufferPointer<T>
    {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<T>.stride)
        // calloc: large blocks come from fresh pages, which cost nothing until they are written.
        guard !overflow, let raw = calloc(max(count, 1), MemoryLayout<T>.stride) else {
            throw .outOfMemory(bytes: overflow ? Int.max : bytes, purpose: purpose, available: nil)
        }
        return UnsafeMutableBufferPointer(start: raw.bindMemory(to: T.self, capacity: count), count: count)
    }

    /// Returns a buffer from ``zeroed(_:count:for:)`` to the system.
    static func release<T>(_ buffer: UnsafeMutableBufferPointer<T>) {
        free(buffer.baseAddress)
    }
}
