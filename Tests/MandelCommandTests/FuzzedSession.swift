import Foundation

@testable import ProcessDriver

/// One fuzz input through a helper's session in this process, and what became of it.
struct FuzzedSession {
    /// How it ended, in words: "read to the end", "refused (65)", "refused (71)", "stopped (slow)".
    let name: String
    /// What was wrong with it, if anything.
    let problem: String?
    /// How far the process's peak resident memory rose above what it held before the input.
    let peakGrowth: Int

    /// Runs `bytes` through a session told it can have `memory` bytes, whose tiles stop after `seconds`.
    static func run(_ bytes: [UInt8], memory: Int, seconds: Double, measuresMemory: Bool) -> FuzzedSession {
        let before = measuresMemory ? PeakMemory.resetToResident() : 0
        let input = WireInput(bytes)
        let frames = OutputFrames()
        let stop = Date().addingTimeInterval(seconds)
        let session = HelperSession(
            read: input.read,
            write: { raw in
                frames.take(raw)
                return true
            },
            memoryAvailable: { memory }, keepGoing: { Date() < stop })
        let ending = session.run()
        let growth = measuresMemory ? max(0, PeakMemory.highWater() - before) : 0
        var problem = frames.problem
        let name: String
        switch ending {
        case .inputEnded:
            name = "read to the end"
            if input.unread != 0 { problem = problem ?? "ended with \(input.unread) bytes unread" }
        case .stopped: name = "stopped (slow)"
        case .outputClosed:
            name = "output closed"
            problem = problem ?? "said its output closed, which never happens here"
        case .refused(let reason, let status):
            name = "refused (\(status))"
            if ![HelperRefusal.badFrameStatus, HelperRefusal.noMemoryStatus].contains(status) {
                problem = problem ?? "refused with status \(status)"
            } else if reason.isEmpty {
                problem = problem ?? "refused without a reason"
            } else if frames.lastKind != .failed || !frames.atFrameEnd {
                problem = problem ?? "refused without a failed frame last"
            }
        }
        return FuzzedSession(name: name, problem: problem, peakGrowth: growth)
    }
}

/// The helper's output, read as a parent reads it: each frame a kind a helper sends, of a length
/// its kind allows. Only headers are kept.
final class OutputFrames {
    private(set) var problem: String?
    private(set) var lastKind: HelperFrame.Kind?
    private var header: [UInt8] = []
    private var payloadLeft = 0

    /// Whether the output so far ends at a frame's end.
    var atFrameEnd: Bool { header.isEmpty && payloadLeft == 0 }

    func take(_ raw: UnsafeRawBufferPointer) {
        var index = 0
        while index < raw.count && problem == nil {
            if payloadLeft > 0 {
                let skipped = min(payloadLeft, raw.count - index)
                payloadLeft -= skipped
                index += skipped
                continue
            }
            header.append(raw[index])
            index += 1
            guard header.count == HelperFrame.headerBytes else { continue }
            let code = header[0..<4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let length = header[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
            header = []
            guard let kind = HelperFrame.Kind(rawValue: code), [.ready, .progress, .done, .failed].contains(kind) else {
                problem = "sent a frame of kind \(code), which a helper never sends"
                return
            }
            guard HelperFrame.allowedLengths(of: kind).contains(length) else {
                problem = "sent a \(kind) frame of \(length) bytes"
                return
            }
            if lastKind == .failed { problem = "sent a \(kind) frame after its failed frame" }
            lastKind = kind
            payloadLeft = length
        }
    }
}

/// The process's peak resident memory (VmHWM), which Linux lets a process reset to what it holds now.
enum PeakMemory {
    /// Resets the peak to the memory resident now (`/proc/self/clear_refs`, 5) and returns that.
    static func resetToResident() -> Int {
        let file = open("/proc/self/clear_refs", O_WRONLY)
        if file >= 0 {
            _ = write(file, "5", 1)
            close(file)
        }
        return field("VmRSS")
    }

    /// The peak resident memory since the last reset, in bytes.
    static func highWater() -> Int { field("VmHWM") }

    private static func field(_ name: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return (line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
    }
}
