import MandelbrotCore
import Platform

/// The helper side of the `process` strategy: `mandel helper`, started by the parent with
/// pipes for standard input and output. It renders the tiles it is asked for with the
/// same core code as any thread, and leaves when its input ends, whatever became of the
/// parent (and the kernel kills it if the parent's serving thread ends first).
///
/// Its exit status: 0 when its input ends between frames (or its parent stops reading); 65 after
/// a frame it cannot take (``HelperRefusal/badFrameStatus``); 71 when a tile within the limits
/// needs more memory than it can have (``HelperRefusal/noMemoryStatus``). Either refusal is a
/// `failed` frame to the parent and one line on standard error.
public enum ProcessHelper {
    /// Serves the parent until its input ends; returns the exit status.
    ///
    /// - Parameters:
    ///   - slot, generation: Which helper this is (for ``HelperFaults``).
    ///   - parent: The parent's process id: if the parent is already gone, the helper leaves at once.
    public static func serve(slot: Int, generation: Int, parent: Int32) -> Int32 {
        guard ChildProcess.endWithParent(expectedParent: parent) else { return 0 }
        let session = HelperSession(
            read: { pointer, count in
                while true {
                    let got = read(0, pointer, count)
                    if got < 0 && errno == EINTR { continue }
                    return max(got, 0)
                }
            },
            write: { bytes in writeAll(1, bytes) },
            faults: getenv("MANDEL_HELPER_FAULTS").map { String(cString: $0) }, slot: slot, generation: generation)
        let ending = session.run()
        if case .refused(let reason, _) = ending {
            let line = Array("mandel helper: \(OneLine.escaped(reason))\n".utf8)
            _ = line.withUnsafeBytes { writeAll(2, $0) }
        }
        return ending.status
    }

    /// Writes all of `bytes` to `descriptor`; false once its reader has gone.
    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }
}
