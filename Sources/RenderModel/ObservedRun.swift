package import Comparison
package import MandelOptions
package import MandelbrotCore
import Platform
package import Probes

/// What one run did beyond its own timing: the main queue's lateness, the process's threads
/// and memory, and how it stopped when it was cancelled on purpose.
package struct RunBehaviour {
    /// The heartbeat's measurements; nil with `--heartbeat off`.
    package var mainQueue: MainQueueLateness?
    /// Threads and resident memory while the run ran; nil where `/proc` cannot be read.
    package var samples: ProcessSamples?
    /// How the run stopped after `--cancel-after`; nil if it was not cancelled.
    package var cancel: CancelOutcome?
}

/// How a run stopped after a planned cancel.
package struct CancelOutcome {
    /// Seconds from the request to the completion on the main queue.
    package let latencySeconds: Double
    /// Tiles that started after the request.
    package let tilesStartedAfter: Int
    /// Processor time the process used from the request to the completion.
    package let cpuAfterSeconds: Double
    /// The process's threads still running or ready to run just after the completion (the caller's not counted).
    package let threadsRunningAfter: Int
}

/// Runs one render with the instruments `--heartbeat`, `--cancel-after` and the thread
/// sampler ask for, all set up before the start and read after the completion.
@MainActor
package struct ObservedRun {
    package let behaviour: BehaviourOptions
    /// The flag the signal watch sets: it stops the run too.
    package let signals: CancellationFlag

    /// What a run left: its report, whether it ended by the planned cancel, and what was observed.
    package struct Outcome {
        package let report: RenderReport
        package let behaviour: RunBehaviour
        package var wasCancelled: Bool { behaviour.cancel != nil }
    }

    /// Runs `body` with a cancel flag of the run's own, and the planned cancel (if any) that
    /// `body` hands to the render, which starts its clock and disarms it.
    ///
    /// The run counts as cancelled only when the render stopped for the planned cancel: one
    /// that finished before the cancel came is a finished run, with its picture.
    ///
    /// - Throws: What `body` throws, except the ``RenderCancelled`` of the planned cancel.
    package func run(
        heartbeat beats: Bool = true,
        _ body: (CancellationFlag, (any PlannedStop)?) async throws -> RenderReport
    ) async throws -> Outcome {
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
        defer { canceller?.disarm() }
        let sampler = ProcessSampler(otherInstruments: canceller == nil ? 0 : 1)
        let heartbeat = beats ? behaviour.heartbeatNanoseconds.map { MainQueueHeartbeat(intervalNanoseconds: $0) } : nil
        heartbeat?.start()
        var report: RenderReport
        var stoppedByPlan = false
        do {
            report = try await body(flag, canceller)
        } catch let cancelled as RenderCancelled
            where canceller?.processorNanosecondsAtCancel != nil && !signals.isCancelled
        {
            report = cancelled.report
            stoppedByPlan = true
        } catch {
            _ = heartbeat?.stop()
            _ = sampler?.stop()
            throw error
        }
        canceller?.disarm()
        // The heartbeat stops at the completion: the look at the threads below holds the main queue (up to 0.5 s).
        let lateness = heartbeat?.stop()
        let runningAfter = stoppedByPlan ? Self.threadsStillRunning() : 0
        var observed = RunBehaviour(mainQueue: lateness, samples: sampler?.stop())
        // The render takes its completion's time after the disarm, which waits for a cancel under way:
        // both differences below are of ordered readings.
        if stoppedByPlan, let cpuAtCancel = canceller?.processorNanosecondsAtCancel,
            let requested = report.cancelRequestedSeconds, let completionCPU = report.processorNanosecondsAtCompletion
        {
            observed.cancel = CancelOutcome(
                latencySeconds: report.wallSeconds - requested,
                tilesStartedAfter: report.tilesStartedAfterCancel,
                cpuAfterSeconds: Double(Int64(bitPattern: completionCPU &- cpuAtCancel)) / 1e9,
                threadsRunningAfter: runningAfter)
        }
        return Outcome(report: report, behaviour: observed)
    }

    /// The threads that stay runnable after a completion: the fewest seen in looks 10 ms apart,
    /// until one sees none, for at most half a second.
    /// A thread that is only finishing its exit is not counted even when it waits for a
    /// processor on a loaded machine (at a load of 10 on two processors a runnable thread can
    /// wait longer than 50 ms: a worker returning to its pool was counted then); one that goes
    /// on rendering is runnable at every look.
    private static func threadsStillRunning() -> Int {
        var fewest = Int.max
        for look in 0..<51 {
            if look > 0 { usleep(10_000) }
            fewest = min(fewest, ProcessStat.runnableThreads())
            if fewest == 0 { break }
        }
        return fewest
    }
}

extension StrategyBehaviour.MainQueue {
    /// The figures of `lateness`, or none when no tick was due.
    package init(_ lateness: MainQueueLateness) {
        self =
            lateness.isMeasured
            ? .init(
                p50: lateness.p50, p99: lateness.p99, max: lateness.max, missedFrames: lateness.missedFrames,
                ticks: lateness.ticks) : .noTicks
    }
}
