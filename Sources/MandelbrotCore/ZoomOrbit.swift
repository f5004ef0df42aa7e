import DeepShim
import Foundation
import Platform

/// One reference orbit for every picture at one centre: the frames of a zoom video, or the parts
/// and frames of a batch job that read it from a file (``OrbitFile``).
///
/// All frames of a zoom share a centre, so the orbit the deepest frame needs (its precision,
/// ``DeepView/sharedOrbitBits``) serves every frame: it is computed once, by the first frame
/// rendered by perturbation, and each frame builds its own table from it (a table depends on
/// the frame's zoom). A frame rendered alone (`--frame K/N`) computes the same orbit, with the same
/// bits, and builds its table the same way, so its pixels are the same bytes.
public final class ZoomOrbit: Sendable {
    /// The centre, as the decimal texts the user gave.
    public let centerReal: String
    public let centerImaginary: String
    /// The orbit's MPFR precision.
    public let bits: Int
    /// The iteration limit it is computed to (it stops sooner where the reference escapes).
    public let limit: Int
    private let computed: Locked<OrbitSteps?>
    /// A reference being built, or built, on a thread of its own for a render still to come (the
    /// next frame's, built while this frame's pixels are computed), and the view it is for.
    /// At most two: the one this frame takes, and the next frame's.
    private let prepared = Locked<[PreparedReference]>([])

    /// An orbit of the centre, computed with `bits` to `limit` steps when a render first needs it.
    /// Where the orbit looks for a period (``DeepView/detectsPeriod``): the ball of the zoom's deepest
    /// frame, the smallest, so that a nucleus found there lies in every frame; nil to compute the
    /// orbit to its escape or the limit. Any stop is exact (a pixel at the orbit's end rebases onto
    /// its start), so the frames whose balls are larger take the same orbit.
    public let periodBall: PeriodBall?

    /// The ball of points c the orbit looks for a nucleus in: the farthest sample (in zoom-1 units,
    /// ``RenderJob/deepReach``) of a view of `zoom`.
    public struct PeriodBall: Sendable, Equatable {
        public let zoom: String
        public let farthestOffset: Double

        public init(zoom: String, farthestOffset: Double) {
            self.zoom = zoom
            self.farthestOffset = farthestOffset
        }
    }

    /// An orbit of the centre, computed with `bits` to `limit` steps (or its escape, or the period
    /// of a nucleus in `periodBall`) when a render first needs it.
    public convenience init(
        centerReal: String, centerImaginary: String, bits: Int, limit: Int, periodBall: PeriodBall? = nil
    ) {
        self.init(
            centerReal: centerReal, centerImaginary: centerImaginary, bits: bits, limit: limit, periodBall: periodBall,
            steps: nil)
    }

    /// An orbit whose steps are here already (read from a file), or, with nil, still to compute.
    init(
        centerReal: String, centerImaginary: String, bits: Int, limit: Int, periodBall: PeriodBall?, steps: OrbitSteps?
    ) {
        self.centerReal = centerReal
        self.centerImaginary = centerImaginary
        self.bits = bits
        self.limit = limit
        self.periodBall = periodBall
        computed = Locked(steps)
    }

    /// The memory the shared orbit holds beside `job`'s render's own reference: the orbit (16 bytes
    /// a step, for as many steps as the limit until it is here, as ``DeepMemory`` counts a
    /// reference's orbit), and every reference prepared for another frame (its copy of the orbit,
    /// and the table and lanes' steps where it builds the table), being built or waiting to be taken.
    public func heldBytes(besides job: RenderJob) -> Int {
        let length = computed.withLock { $0?.length }
        // An orbit that looks for a period holds its steps only: reserved address space until then.
        let orbitBytes = length.map { 16 * ($0 + 1) } ?? (periodBall == nil ? 16 * (limit + 1) : 0)
        guard let length else { return orbitBytes }
        let others = prepared.withLock { $0.map(\.key).filter { $0.view != job.deep } }
        return others.reduce(orbitBytes) { total, key in
            let memory = DeepMemory(steps: length, usesTable: key.view.usesTable)
            return total + (key.buildsTable ? memory.rendererBytes : memory.orbitBytes)
        }
    }

    /// Whether the orbit is here (computed or read), so that rendering takes no serial time for it.
    public var isComputed: Bool { computed.withLock { $0 != nil } }

    /// Whether the orbit serves `view` counted to `limit` steps: the same centre texts, precision and limit.
    public func serves(_ view: DeepView, samples: ImageSize, limit: Int) -> Bool {
        view.centerReal == centerReal && view.centerImaginary == centerImaginary
            && view.precisionBits(for: samples) == bits && limit == self.limit
            && view.detectsPeriod == (periodBall != nil)
    }

    /// The orbit, computing it now unless it is here; also the seconds it took (0 if it was here);
    /// nil if `cancellation` was set meanwhile. A second caller waits for the first's computation.
    func steps(
        cancellation: CancellationFlag, progress: SerialProgress?
    ) throws(RenderFailure) -> (steps: OrbitSteps, seconds: Double)? {
        var failure: RenderFailure?
        let found = computed.withLock { computed -> (steps: OrbitSteps, seconds: Double)? in
            if let computed { return (computed, 0) }
            let start = MonotonicClock.nanoseconds()
            do throws(RenderFailure) {
                guard let steps = try OrbitSteps(orbitOf: self, cancellation: cancellation, progress: progress) else {
                    return nil
                }
                computed = steps
                return (steps, MonotonicClock.seconds(since: start))
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        return found
    }

    /// Starts building `job`'s reference (its table above all) on a thread of its own, for its render
    /// to take when it comes (``PictureRender/run``); nothing unless the orbit is here and `job` is
    /// a deep view it serves. Meant for the next frame of a zoom while this one's pixels are
    /// computed: the table is serial, and would leave the other processors idle at its frame's start.
    public func prepare(_ job: RenderJob, buildsTable: Bool) {
        guard let deep = job.deep, serves(deep, samples: job.deepReach.pictureSamples, limit: job.kernelLimit),
            let steps = computed.withLock({ $0 })
        else { return }
        let key = PreparedReference.Key(view: deep, reach: job.deepReach.farthestOffset, buildsTable: buildsTable)
        let building = PreparedReference(key: key)
        prepared.withLock { $0 = $0.suffix(1) + [building] }
        let reach = job.deepReach
        let limit = job.kernelLimit
        let thread = Thread {
            building.finish(
                try? DeepReference(
                    steps: steps, view: deep, reach: reach, limit: limit, orbitSeconds: 0, buildsTable: buildsTable))
        }
        thread.name = "mandel.next-frame-table"
        thread.start()
    }

    /// The reference prepared for `view` (waiting for it if it is still being built), with the
    /// seconds waited; nil if none was prepared for it.
    func takePrepared(
        view: DeepView, reach: (pictureSamples: ImageSize, farthestOffset: Double), buildsTable: Bool
    ) -> DeepReference? {
        let key = PreparedReference.Key(view: view, reach: reach.farthestOffset, buildsTable: buildsTable)
        guard
            let building = prepared.withLock({ list -> PreparedReference? in
                guard let index = list.firstIndex(where: { $0.key == key }) else { return nil }
                return list.remove(at: index)
            })
        else { return nil }
        let start = MonotonicClock.nanoseconds()
        guard let reference = building.wait() else { return nil }
        reference.takenPrepared(waitedSeconds: MonotonicClock.seconds(since: start))
        return reference
    }

    /// The orbit's steps, computing them now unless they are here; nil if `cancellation` was set meanwhile.
    package func computedSteps(cancellation: CancellationFlag) throws(RenderFailure) -> OrbitSteps? {
        try steps(cancellation: cancellation, progress: nil)?.steps
    }
}

/// A reference orbit's steps as Doubles, with its steps below 2⁻⁹⁶⁰ kept exactly: what
/// `deep_reference_orbit` computes, owned here and copied into each view's ``DeepReference``.
package final class OrbitSteps: @unchecked Sendable {
    // @unchecked: written only by the initialisers, read-only afterwards.
    /// Z_0 … Z_length, re and im interleaved (``DeepReference/allocateOrbit(steps:)``).
    package let orbit: UnsafeMutablePointer<Double>
    /// The reference's last index: where it escaped, or the limit.
    package let length: Int
    /// The steps whose Z is below 2⁻⁹⁶⁰ in both parts, increasing, and their values.
    let tinyIndex: [UInt64]
    let tinyValue: [deep_complex]
    /// The period the orbit stopped at (its length), or nil where it escaped or reached the limit.
    package let period: Int?
    /// The reference point as Doubles (Z₁).
    var centerReal: Double { orbit[2] }
    var centerImaginary: Double { orbit[3] }

    /// Computes the orbit of `zoom`'s centre; nil if cancelled.
    init?(
        orbitOf zoom: ZoomOrbit, cancellation: CancellationFlag, progress: SerialProgress?
    ) throws(RenderFailure) {
        // Steps that fit in memory (with a frame's copy and table, about 256 bytes a step) where an orbit
        // looks for a period: past them, it stops with one line rather than being killed.
        var reachable = zoom.limit
        if zoom.periodBall != nil, let available = ResourceLimits.memoryAvailable() {
            reachable = min(zoom.limit, max(1 << 16, available / 256))
        }
        let reserved = try DeepReference.reserveOrbit(limit: reachable)
        defer { deep_orbit_release(reserved, UInt64(reachable)) }
        var context = deep_context()
        context.orbit = reserved
        if reachable < zoom.limit { context.most_steps = UInt64(reachable) }
        if let ball = zoom.periodBall {
            context.period_radius = DeepReference.scaled(
                ball.farthestOffset, by: deep_inverse_zoom(ball.zoom, zoom.bits))
        }
        let stop = StopWord(cancellation.isCancelled)
        let registration = cancellation.onCancel { stop.set() }
        let length = deep_reference_orbit(
            zoom.centerReal, zoom.centerImaginary, zoom.bits, UInt64(zoom.limit), &context, stop.word,
            progress?.steps)
        if let registration { cancellation.removeHandler(registration) }
        let tinySteps = Int(context.tiny_count)
        defer { deep_free_context(&context) }
        guard length < DEEP_ORBIT_TOO_LONG else {
            if stop.word.pointee != 0 { return nil }
            throw DeepReference.failure(
                ofOrbitEnding: length, tinySteps: tinySteps, limit: zoom.limit, reachable: reachable, usesTable: true,
                holding: "a zoom's reference orbit and a frame's table")
        }
        // Memory for the steps the orbit took, not the limit's.
        orbit = try DeepReference.allocateOrbit(steps: Int(length))
        orbit.update(from: reserved, count: 2 * (Int(length) + 1))
        self.length = Int(length)
        tinyIndex = (0..<tinySteps).map { context.tiny_index[$0] }
        tinyValue = (0..<tinySteps).map { context.tiny_value[$0] }
        period = context.period > 0 ? Int(context.period) : nil
    }

    /// Steps read from elsewhere: `orbit` (from ``DeepReference/allocateOrbit(steps:)``, now owned
    /// here) holds Z_0 … Z_`length`.
    init(
        orbit: UnsafeMutablePointer<Double>, length: Int, tinyIndex: [UInt64], tinyValue: [deep_complex], period: Int?
    ) {
        self.orbit = orbit
        self.length = length
        self.tinyIndex = tinyIndex
        self.tinyValue = tinyValue
        self.period = period
    }

    deinit { free(orbit) }
}

/// A reference built on a thread of its own, and the view it is for.
private final class PreparedReference: Sendable {
    struct Key: Equatable {
        let view: DeepView
        let reach: Double
        let buildsTable: Bool
    }

    let key: Key
    private let done = DispatchSemaphore(value: 0)
    private let result = Locked<DeepReference?>(nil)

    init(key: Key) { self.key = key }

    func finish(_ reference: DeepReference?) {
        result.withLock { $0 = reference }
        done.signal()
    }

    /// The reference, once built (nil if there was no memory for it).
    func wait() -> DeepReference? {
        done.wait()
        done.signal()
        return result.withLock { $0 }
    }
}
