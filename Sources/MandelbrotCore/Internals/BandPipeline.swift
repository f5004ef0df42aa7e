import Dispatch
import Foundation
import Platform
import Synchronization

/// The bands of one pass in flight: their buffers in rotation, their tile records,
/// and the hand-over of each finished band, in order, to the sink.
///
/// There is no barrier between bands. A worker that finishes its tiles of
/// band k moves straight on to band k + 1, while others still finish band
/// k; it waits only when it would write into a buffer whose band the sink
/// has not yet released (with three buffers, two bands ahead of the oldest
/// one still being written). The last tile of a band, whoever renders it,
/// queues the band on the pipeline's serial queue (`mandel.bands`), which
/// alone hands bands to the sink, in picture order and one at a time, and
/// releases them in the same order.
final class BandPipeline: @unchecked Sendable {
    // @unchecked: `slots` are fixed at creation. What the queue owns
    // (`finished`, `nextHandOver`, `handedOver`, `inFlight`, `records`,
    // `deliveryError`, `sinkCPU`, `drainWaiter`) is touched only on `queue`.
    // `released` is atomic, and the condition guards waiting for it.

    let plan: WorkPlan
    private let slots: [Slot]
    private let sink: (any BandSink)?
    private let cancellation: CancellationFlag
    /// Keep one record per tile (a picture rendered whole), rather than one per band and worker.
    private let keepsTileRecords: Bool
    private let origin: UInt64
    private let queue = DispatchQueue(label: "mandel.bands")
    private let released = Atomic<Int>(0)
    private let releaseSignal = NSCondition()

    private var finished = Set<Int>()
    private var nextHandOver = 0
    private var handedOver = 0
    private var inFlight = 0
    private var records: [TileRecord] = []
    private var deliveryError: (any Error)?
    private var sinkCPU = CPUTime.zero
    private var drainWaiter: (@Sendable () -> Void)?
    private var slotWaiters: [(band: Int, resume: @Sendable () -> Void)] = []

    /// One buffer in the rotation, with the records and countdown of the band it holds.
    final class Slot: Sendable {
        let canvas: PixelBuffer?
        let counts: IterationCounts?
        let recorder: TileRecorder
        let remainingTiles = Atomic<Int>(0)

        init(canvas: PixelBuffer?, counts: IterationCounts?, recorder: TileRecorder) {
            self.canvas = canvas
            self.counts = counts
            self.recorder = recorder
        }
    }

    /// Sets up a pass over `plan`.
    ///
    /// - Parameters:
    ///   - slots: The buffers in rotation: one per band in flight, with no canvas for the counting pass.
    ///   - sink: Who takes each finished band of a colouring pass; nil to keep the pixels where they are.
    ///   - origin: The render's start, which record times count from.
    init(
        plan: WorkPlan, slots: [Slot], sink: (any BandSink)?, cancellation: CancellationFlag, keepsTileRecords: Bool,
        origin: UInt64
    ) {
        precondition(!slots.isEmpty, "a pass needs a buffer")
        self.plan = plan
        self.slots = slots
        self.sink = sink
        self.cancellation = cancellation
        self.keepsTileRecords = keepsTileRecords
        self.origin = origin
        for band in 0..<min(slots.count, plan.bandCount) {
            slots[band].remainingTiles.store(plan.tileCount(of: band), ordering: .relaxed)
        }
    }

    // MARK: - On the workers' threads

    /// Waits, if it must, until band `band`'s buffer is free; false if the render was cancelled
    /// meanwhile and `givingUpOnCancel` (in native cancellation the mechanism decides, and
    /// released bands keep coming: a cancel releases them unwritten).
    func acquire(_ band: Int, givingUpOnCancel: Bool) -> Bool {
        if band < released.load(ordering: .acquiring) + slots.count { return true }
        releaseSignal.lock()
        defer { releaseSignal.unlock() }
        while band >= released.load(ordering: .acquiring) + slots.count {
            if givingUpOnCancel && cancellation.isCancelled { return false }
            releaseSignal.wait()
        }
        return true
    }

    /// Wakes every worker and task waiting for a buffer, so that it sees a cancel.
    func wakeWaiters() {
        releaseSignal.lock()
        releaseSignal.broadcast()
        releaseSignal.unlock()
        queue.async { self.resumeSlotWaiters(all: true) }
    }

    /// Returns, without blocking a thread, once band `band`'s buffer is free (or the render is cancelled):
    /// a static plan's band starts only then.
    func slotFree(for band: Int) async {
        await awaitHandoff { free in
            queue.async {
                if band < self.handedOver + self.slots.count || self.cancellation.isCancelled {
                    free()
                } else {
                    self.slotWaiters.append((band, free))
                }
            }
        }
    }

    private func resumeSlotWaiters(all: Bool) {
        let ready = slotWaiters.filter { all || $0.band < handedOver + slots.count }
        slotWaiters.removeAll { all || $0.band < handedOver + slots.count }
        ready.forEach { $0.resume() }
    }

    /// Where the colouring pass writes band `band`; nil for the counting pass.
    func target(for band: Int) -> BandTarget? {
        let slot = slots[band % slots.count]
        return slot.canvas.map { BandTarget(canvas: $0, firstRow: plan.rows(of: band).lowerBound, counts: slot.counts) }
    }

    /// Records a finished tile, and hands its band over if it was the band's last.
    func tileFinished(_ tile: Int, band: Int, worker: Int, start: UInt64, end: UInt64, iterations: UInt64) {
        let slot = slots[band % slots.count]
        slot.recorder.record(
            slot: tile - plan.firstTile(of: band), worker: worker, start: start, end: end, iterations: iterations)
        // Acquire-release: whoever sees the count reach zero sees every record and pixel of the band.
        if slot.remainingTiles.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            queue.async { self.bandFinished(band) }
        }
    }

    // MARK: - On the pipeline's queue

    private func bandFinished(_ band: Int) {
        finished.insert(band)
        handOverReadyBands()
    }

    /// Hands over finished bands in picture order, one at a time: the next goes to the sink
    /// when the sink is done with the one before (the sink could not start it sooner).
    private func handOverReadyBands() {
        while inFlight == 0, finished.remove(nextHandOver) != nil {
            let band = nextHandOver
            nextHandOver += 1
            handOver(band)
        }
    }

    private func handOver(_ band: Int) {
        let slot = slots[band % slots.count]
        records += bandRecords(band, slot: slot)
        guard let sink, let canvas = slot.canvas, deliveryError == nil, !cancellation.isCancelled else {
            release(band)
            return
        }
        inFlight += 1
        sink.consume(FinishedBand(buffer: canvas, rows: plan.rows(of: band))) { result in
            self.queue.async {
                self.inFlight -= 1
                switch result {
                case .success(let cpu): self.sinkCPU = self.sinkCPU.adding(cpu)
                case .failure(let error):
                    if self.deliveryError == nil { self.deliveryError = error }
                    self.cancellation.cancel()
                }
                self.release(band)
                self.handOverReadyBands()
            }
        }
    }

    /// Frees band `band`'s buffer for the band `slots.count` later, then lets waiting workers on.
    private func release(_ band: Int) {
        handedOver += 1
        let reuser = band + slots.count
        if reuser < plan.bandCount {
            let slot = slots[band % slots.count]
            slot.recorder.reset(count: plan.tileCount(of: band))
            slot.remainingTiles.store(plan.tileCount(of: reuser), ordering: .relaxed)
        }
        releaseSignal.lock()
        released.store(band + 1, ordering: .releasing)
        releaseSignal.broadcast()
        releaseSignal.unlock()
        resumeSlotWaiters(all: false)
        resumeDrainWaiterIfDone()
    }

    private var isDrained: Bool {
        handedOver == plan.bandCount || ((cancellation.isCancelled || deliveryError != nil) && inFlight == 0)
    }

    private func resumeDrainWaiterIfDone() {
        guard let waiter = drainWaiter else { return }
        guard isDrained else {
            checkForMissingTiles()
            return
        }
        drainWaiter = nil
        waiter()
    }

    /// Traps if, after the strategy's completion, a band can never be handed over: the
    /// strategy completed without rendering all its tiles, which its contract forbids.
    /// (Without this check the render would wait for that band for ever.)
    private func checkForMissingTiles() {
        guard !cancellation.isCancelled, deliveryError == nil, inFlight == 0, !finished.contains(nextHandOver),
            nextHandOver < plan.bandCount
        else { return }
        let missing = slots[nextHandOver % slots.count].remainingTiles.load(ordering: .relaxed)
        let first = plan.firstTile(of: nextHandOver)
        preconditionFailure(
            "the strategy completed with \(missing) tile(s) of band \(nextHandOver) never rendered (tiles "
                + "\(first)..<\(first + plan.tileCount(of: nextHandOver)))"
        )
    }

    /// A band's records: one per tile for a picture rendered whole, otherwise one per worker.
    private func bandRecords(_ band: Int, slot: Slot) -> [TileRecord] {
        let first = plan.firstTile(of: band)
        let tiles = (0..<plan.tileCount(of: band)).map {
            slot.recorder.record(at: $0, rect: plan.rect(of: first + $0), since: origin)
        }
        guard !keepsTileRecords else { return tiles }
        let rows = plan.rows(of: band)
        return TileRecord.perWorker(
            tiles, rect: PixelRect(x: 0, y: rows.lowerBound, width: plan.size.width, height: rows.count))
    }

    // MARK: - After the strategy's completion

    /// What the pass left behind once every band is handed over and released, or,
    /// after a cancel or a failed delivery, once the sink has given back every buffer.
    struct Outcome {
        let records: [TileRecord]
        let deliveryError: (any Error)?
        let sinkCPU: CPUTime
    }

    /// Waits for the sink to finish with the bands in flight; call after the strategy's
    /// completion, when no tile is being rendered any more.
    func drain() async -> Outcome {
        await awaitHandoff { drained in
            queue.async {
                // Every band-finished block was queued before the completion, so it is ahead of this one.
                if self.isDrained {
                    drained()
                } else {
                    self.drainWaiter = drained
                    self.checkForMissingTiles()
                }
            }
        }
        return queue.sync {
            var records = self.records
            // A picture rendered whole keeps its unfinished tiles' records too: they show how far it got.
            if keepsTileRecords && handedOver == 0 {
                records = bandRecords(0, slot: slots[0])
            }
            return Outcome(records: records, deliveryError: deliveryError, sinkCPU: sinkCPU)
        }
    }
}
