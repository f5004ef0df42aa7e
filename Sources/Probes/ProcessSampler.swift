import Dispatch
public import Platform
import Synchronization

/// Samples the process's thread count and resident memory on a thread of its own, every
/// `interval`, while a render runs: how far a mechanism's pool grows, and when. Helper
/// processes the render has started (`--strategy process`) are added to the figures.
///
/// The sampler's own thread is not counted. Samples are kept as the most seen in each
/// 10 ms window, so an hour-long render keeps a few megabytes of them.
public final class ProcessSampler: Sendable {
    /// The window each kept sample covers, in nanoseconds.
    public static let windowNanoseconds: UInt64 = 10_000_000

    private let interval: UInt64
    private let stopRequested = Atomic(false)
    private let finished = Locked<ProcessSamples?>(nil)
    private let done = DispatchSemaphore(value: 0)

    private let instrumentThreads: Int

    /// Starts sampling every `intervalNanoseconds`; nil if there is no `/proc` or no thread to sample on.
    ///
    /// - Parameter otherInstruments: Threads of other instruments to leave out of the count, besides the sampler's own.
    public init?(intervalNanoseconds: UInt64 = 1_000_000, otherInstruments: Int = 0) {
        interval = intervalNanoseconds
        instrumentThreads = 1 + otherInstruments
        guard let stat = ProcessStat() else { return nil }
        let transfer = UncheckedTransfer(stat)
        let started = SystemThread.start { [self] in sample(with: transfer.value) }
        guard started else { return nil }
    }

    private func sample(with stat: ProcessStat) {
        let start = MonotonicClock.nanoseconds()
        var windows: [ProcessSnapshot] = []
        while true {
            let now = MonotonicClock.nanoseconds()
            if let snapshot = stat.read() {
                let window = Int((now - start) / Self.windowNanoseconds)
                let counted = ProcessSnapshot(
                    threads: snapshot.threads - instrumentThreads, residentBytes: snapshot.residentBytes)
                if windows.count <= window {
                    windows.append(
                        contentsOf: repeatElement(windows.last ?? counted, count: window + 1 - windows.count))
                    windows[window] = counted
                } else {
                    windows[window] = ProcessSnapshot(
                        threads: max(windows[window].threads, counted.threads),
                        residentBytes: max(windows[window].residentBytes, counted.residentBytes))
                }
            }
            if stopRequested.load(ordering: .relaxed) { break }
            SystemThread.sleep(nanoseconds: interval)
        }
        finished.withLock { $0 = ProcessSamples(startNanoseconds: start, windows: windows) }
        done.signal()
    }

    /// Takes a last sample, stops the thread and returns every sample.
    public func stop() -> ProcessSamples {
        stopRequested.store(true, ordering: .relaxed)
        done.wait()
        return finished.withLock { $0! }
    }
}

/// What a ``ProcessSampler`` saw.
public struct ProcessSamples: Sendable {
    /// When sampling began, in monotonic nanoseconds.
    public let startNanoseconds: UInt64
    /// The most threads and resident memory in each 10 ms window since the start.
    public let windows: [ProcessSnapshot]

    /// The most threads the process had at once (the sampler's own not counted).
    public var peakThreads: Int { windows.map(\.threads).max() ?? 0 }
    /// The most resident memory the process had, in bytes.
    public var peakResidentBytes: Int { windows.map(\.residentBytes).max() ?? 0 }
}

/// Moves a value that is used by one thread at a time onto the sampler's thread.
private struct UncheckedTransfer<Value>: @unchecked Sendable {
    // @unchecked: the value is handed over once, before the thread starts, and
    // used only by that thread afterwards.
    let value: Value
    init(_ value: Value) { self.value = value }
}
