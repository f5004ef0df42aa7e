import MandelbrotCore
import Platform
import Probes

/// What one run did beyond its own timing: the main queue's lateness, the process's threads
/// and memory, and how it stopped when it was cancelled on purpose.
struct RunBehaviour {
    /// The heartbeat's measurements; nil with `--heartbeat off`.
    var mainQueue: MainQueueLateness?
    /// Threads and resident memory while the run ran; nil where `/proc` cannot be read.
    var samples: ProcessSamples?
    /// How the run stopped after `--cancel-after`; nil if it was not cancelled.
    var cancel: CancelOutcome?
}

/// How a run stopped after a planned cancel.
struct CancelOutcome {
    /// Seconds from the request to the completion on the main queue.
    let latencySeconds: Double
    /// Tiles that started after the request.
    let tilesStartedAfter: Int
    /// Processor time the process used from the request to the completion.
    let cpuAfterSeconds: Double
    /// The process's threads still running or ready to run just after the completion (the caller's not counted).
    let threadsRunningAfter: Int
}

/// Runs one render with the instruments `--heartbeat`, `--cancel-after` and the thread
/// sampler ask for, all set up before the start and read after the completion.
@MainActor
struct ObservedRun {
    let behaviour: BehaviourOptions
    /// The flag the signal watch sets: it stops the run too.
    let signals: CancellationFlag

    /// What a run left: its report, whether it ended by the planned cancel, and what was observed.
    struct Outcome {
        let report: RenderReport
        let behaviour: RunBehaviour
        var wasCancelled: Bool { behaviour.cancel != nil }
    }

    /// Runs `body` with a cancel flag of the run's own.
    ///
    /// - Throws: What `body` throws, except the ``RenderCancelled`` of the planned cancel.
    func run(
        heartbeat beats: Bool = true, _ body: (CancellationFlag) async throws -> RenderReport
    ) async throws
        -> Outcome
    {
        let flag = CancellationFlag()
        let link = signals.onCancel { flag.cancel() }
        defer { link.map(signals.removeHandler) }
        var canceller: PlannedCancel?
        if let delay = behaviour.cancelAfterNanoseconds {
            // A cancel that cannot be armed must not pass for a run that finished first.
            guard let armed = PlannedCancel(after: delay, of: flag) else {
                throw RenderFailure.threadNotStarted(code: SystemThread.lastFailure)
            }
            canceller = armed
        }
        let sampler = ProcessSampler(otherInstruments: canceller == nil ? 0 : 1)
        let heartbeat = beats ? behaviour.heartbeatNanoseconds.map { MainQueueHeartbeat(intervalNanoseconds: $0) } : nil
        heartbeat?.start()
        var report: RenderReport
        do {
            report = try await body(flag)
        } catch let cancelled as RenderCancelled
            where canceller?.processorNanosecondsAtCancel != nil && !signals.isCancelled
        {
            report = cancelled.report
        } catch {
            _ = heartbeat?.stop()
            _ = sampler?.stop()
            canceller?.disarm()
            throw error
        }
        let completionCPU = report.processorNanosecondsAtCompletion ?? ProcessorClock.nanoseconds()
        canceller?.disarm()
        let runningAfter = canceller?.processorNanosecondsAtCancel == nil ? 0 : Self.threadsStillRunning()
        var observed = RunBehaviour(mainQueue: heartbeat?.stop(), samples: sampler?.stop())
        if let cpuAtCancel = canceller?.processorNanosecondsAtCancel, let requested = report.cancelRequestedSeconds {
            observed.cancel = CancelOutcome(
                latencySeconds: max(report.wallSeconds - requested, 0),
                tilesStartedAfter: report.tilesStartedAfterCancel,
                cpuAfterSeconds: Double(completionCPU &- cpuAtCancel) / 1e9,
                threadsRunningAfter: max(runningAfter, 0))
        }
        return Outcome(report: report, behaviour: observed)
    }

    /// The threads that stay runnable over the 50 ms after a completion: the fewest seen in
    /// six looks 10 ms apart, so a thread that is only finishing its exit (and, on a loaded
    /// machine, waiting for a processor to do it) is not counted, and one that goes on
    /// rendering is.
    private static func threadsStillRunning() -> Int {
        var fewest = Int.max
        for look in 0..<6 {
            if look > 0 { usleep(10_000) }
            fewest = min(fewest, ProcessStat.runnableThreads())
        }
        return fewest
    }
}
