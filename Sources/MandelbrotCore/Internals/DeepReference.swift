import DeepShim
import Platform

/// The serial part of a deep render, shared read-only by every worker: the reference orbit at
/// the view's centre (computed in MPFR, kept as `Double`s) and the BLA table built over it.
final class DeepReference: @unchecked Sendable {
    // Written only by `init`; read by any number of workers afterwards.
    private(set) var context = deep_context()
    let orbit: UnsafeMutablePointer<Double>
    private(set) var phases: DeepPhases
    let usesTable: Bool
    /// The largest delta of the grid, which the table's radii allow for.
    let largestDelta: deep_real
    /// Seconds other processes spent building their own copies of the table from this orbit
    /// (the longest of each pass's helpers, summed over passes): see ``reportedPhases``.
    private let tableElsewhere = Locked<Double>(0)
    /// The view as its texts and the orbit's precision: what the pixels that Doubles cannot
    /// decide are counted with again, in MPFR (and what a helper is sent to do the same).
    let exactView: ExactView
    /// The view in MPFR (`context.exact`).
    private let exactHandle: OpaquePointer?

    /// A deep view's numbers as text, with the precision of its orbit.
    struct ExactView: Sendable {
        let centerReal: String
        let centerImaginary: String
        let zoom: String
        let bits: Int
        /// The sample grid's shorter side (the pixel step is 3 / (zoom × it)).
        let gridSide: Int
    }

    /// The tolerance of the table's linear steps: the neglected z² at most 2⁻⁵³ of the kept term.
    static let tableTolerance = 0x1p-53

    /// Computes the orbit to `limit` steps (or its escape) for the samples `reach` describes, and the
    /// table beside it unless the view says not to or `buildsTable` is false (the workers are
    /// other processes, which build their own), telling `progress` how far it is; nil if
    /// `cancellation` was set meanwhile.
    ///
    /// The pixels cannot start before the orbit ends, even where the orbit is most of the wall
    /// time: a pixel's first table step, at the orbit's start, may span 2¹⁹ steps (the whole
    /// orbit at 10¹⁰⁸⁶), and which entry it takes is known only once every entry it could take is
    /// built. The table can: its entries need only the steps they span.
    init?(
        view: DeepView, reach: (pictureSamples: ImageSize, farthestOffset: Double), limit: Int,
        cancellation: CancellationFlag, progress: SerialProgress, buildsTable: Bool = true, mostSteps: Int? = nil
    ) throws(RenderFailure) {
        let bits = view.precisionBits(for: reach.pictureSamples)
        let start = MonotonicClock.nanoseconds()
        progress.enter(.orbit)
        // Address space for the limit's steps, whose pages are taken only as the orbit writes them;
        // copied into memory of the orbit's own length once it ends (its period, or its escape).
        let reachable = min(limit, mostSteps ?? limit)
        let reserved = try Self.reserveOrbit(limit: reachable)
        context.orbit = reserved
        if reachable < limit { context.most_steps = UInt64(reachable) }
        context.inverse_zoom = deep_inverse_zoom(view.zoom, bits)
        // The largest delta: the picture's farthest sample from the centre, in zoom-1 units (the
        // grid's own numbers), or farther for a window beyond the picture (RenderJob.deepReach).
        let largest = Self.scaled(reach.farthestOffset, by: context.inverse_zoom)
        largestDelta = largest
        // Deltas a Double holds with full precision (above 2^-1000 with room for the pixel offsets) stay Doubles.
        context.extended = context.inverse_zoom.e < -960 ? 1 : 0
        usesTable = view.usesTable
        // The ball the orbit looks for a nucleus in: every sample of the picture (and of a window beyond it).
        if view.detectsPeriod { context.period_radius = largest }
        let buildsHere = view.usesTable && buildsTable
        // The orbit's loop reads a plain int that a cancel sets; the handler keeps it alive.
        let stop = StopWord(cancellation.isCancelled)
        let registration = cancellation.onCancel { stop.set() }
        // The table is built beside the orbit, on a thread of its own, as the orbit's steps come:
        // what is left of it when the orbit ends is the entries of its last steps.
        var orbitSeconds = 0.0
        let length =
            buildsHere
            ? deep_reference_orbit_and_table(
                view.centerReal, view.centerImaginary, bits, UInt64(limit), &context, stop.word, progress.steps,
                largest, Self.tableTolerance, &orbitSeconds)
            : deep_reference_orbit(
                view.centerReal, view.centerImaginary, bits, UInt64(limit), &context, stop.word, progress.steps)
        if let registration { cancellation.removeHandler(registration) }
        guard length < DEEP_ORBIT_TOO_LONG else {
            // The orbit stops early when cancelled, or when its steps kept exactly (below 2^-960,
            // every step at a centre of 0) cannot grow: then the cancel word was never set.
            let tinySteps = Int(context.tiny_count)
            deep_free_context(&context)
            deep_orbit_release(reserved, UInt64(reachable))
            if stop.word.pointee != 0 { return nil }
            throw Self.failure(
                ofOrbitEnding: length, tinySteps: tinySteps, limit: limit, reachable: reachable,
                usesTable: view.usesTable, holding: "a reference orbit and table")
        }
        do throws(RenderFailure) {
            orbit = try Self.allocateOrbit(steps: Int(length))
        } catch {
            deep_free_context(&context)
            deep_orbit_release(reserved, UInt64(reachable))
            throw error
        }
        orbit.update(from: reserved, count: 2 * (Int(length) + 1))
        deep_orbit_release(reserved, UInt64(reachable))
        context.orbit = orbit
        exactView = ExactView(
            centerReal: view.centerReal, centerImaginary: view.centerImaginary, zoom: view.zoom, bits: bits,
            gridSide: min(reach.pictureSamples.width, reach.pictureSamples.height))
        exactHandle = Self.attachExact(exactView, to: &context)
        // The lanes' steps, for the pixels computed here (none where the workers are other processes).
        if buildsTable { _ = deep_prepare_lanes(&context) }
        let seconds = MonotonicClock.seconds(since: start)
        if !buildsHere { orbitSeconds = seconds }
        context.center_re = orbit[2]
        context.center_im = orbit[3]
        phases = DeepPhases(
            orbitSeconds: orbitSeconds, tableSeconds: buildsHere ? max(0, seconds - orbitSeconds) : 0,
            orbitLength: Int(length), precisionBits: bits, extendedExponent: context.extended != 0,
            orbitPeriod: context.period > 0 ? Int(context.period) : nil)
    }

    /// Why an orbit that was not cancelled ended without an answer (`length` at or past
    /// `DEEP_ORBIT_TOO_LONG`): it found no period in the `reachable` steps that fit in memory, or its
    /// steps kept exactly (below 2⁻⁹⁶⁰, `tinySteps` of them so far) could not grow. `holding` names
    /// what the orbit is for, as the memory check counts it.
    static func failure(
        ofOrbitEnding length: UInt64, tinySteps: Int, limit: Int, reachable: Int, usesTable: Bool, holding: String
    ) -> RenderFailure {
        if length == DEEP_ORBIT_TOO_LONG {
            return .outOfMemory(
                bytes: DeepMemory(steps: limit, usesTable: usesTable).rendererBytes,
                purpose: "\(holding) of up to \(limit) steps (it found no period in the \(reachable) that fit)",
                available: ResourceLimits.memoryAvailable())
        }
        return .outOfMemory(
            bytes: 2 * max(tinySteps, 16) * (MemoryLayout<UInt64>.size + MemoryLayout<deep_complex>.stride),
            purpose: "the reference orbit's steps below 2^-960, kept exactly (\(tinySteps) so far, of at most "
                + "--iterations \(limit))", available: nil)
    }

    /// The reference of `view` from an orbit computed before (``ZoomOrbit``), which `orbitSeconds`
    /// were spent on for this render (0 where another render computed it): a copy of its steps, and
    /// the table built from them here unless the view says not to or `buildsTable` is false.
    ///
    /// A table built after the orbit holds the entries of one built beside it (the helpers of
    /// `process` build theirs so), so a view's pixels do not depend on which way it was made.
    init(
        steps: OrbitSteps, view: DeepView, reach: (pictureSamples: ImageSize, farthestOffset: Double), limit: Int,
        orbitSeconds: Double, buildsTable: Bool
    ) throws(RenderFailure) {
        precondition(steps.length <= limit, "an orbit of \(steps.length) steps for a limit of \(limit)")
        let bits = view.precisionBits(for: reach.pictureSamples)
        let start = MonotonicClock.nanoseconds()
        orbit = try Self.allocateOrbit(steps: steps.length)
        orbit.update(from: steps.orbit, count: 2 * (steps.length + 1))
        context.orbit = orbit
        context.length = UInt64(steps.length)
        // Freed by deep_free_context, as deep_reference_orbit's are.
        let tinyCount = steps.tinyIndex.count
        context.tiny_count = UInt64(tinyCount)
        context.tiny_index = malloc(max(1, tinyCount) * MemoryLayout<UInt64>.stride)?
            .assumingMemoryBound(to: UInt64.self)
        context.tiny_value = malloc(max(1, tinyCount) * MemoryLayout<deep_complex>.stride)?
            .assumingMemoryBound(to: deep_complex.self)
        guard let tinyIndex = context.tiny_index, let tinyValue = context.tiny_value else {
            deep_free_context(&context)
            free(orbit)
            throw .outOfMemory(
                bytes: tinyCount * (MemoryLayout<UInt64>.stride + MemoryLayout<deep_complex>.stride),
                purpose: "the reference orbit's steps below 2^-960", available: nil)
        }
        for index in 0..<tinyCount {
            tinyIndex[index] = steps.tinyIndex[index]
            tinyValue[index] = steps.tinyValue[index]
        }
        context.inverse_zoom = deep_inverse_zoom(view.zoom, bits)
        largestDelta = Self.scaled(reach.farthestOffset, by: context.inverse_zoom)
        context.extended = context.inverse_zoom.e < -960 ? 1 : 0
        context.center_re = steps.centerReal
        context.center_im = steps.centerImaginary
        usesTable = view.usesTable
        exactView = ExactView(
            centerReal: view.centerReal, centerImaginary: view.centerImaginary, zoom: view.zoom, bits: bits,
            gridSide: min(reach.pictureSamples.width, reach.pictureSamples.height))
        exactHandle = Self.attachExact(exactView, to: &context)
        if view.usesTable && buildsTable { _ = deep_build_table(&context, largestDelta, Self.tableTolerance, nil) }
        if buildsTable { _ = deep_prepare_lanes(&context) }
        phases = DeepPhases(
            orbitSeconds: orbitSeconds,
            tableSeconds: view.usesTable && buildsTable ? MonotonicClock.seconds(since: start) : 0,
            orbitLength: steps.length, precisionBits: bits, extendedExponent: context.extended != 0,
            orbitPeriod: steps.period)
    }

    /// A reference another process computed (see ``decode(from:limit:)``): `context` holds its
    /// orbit (in `orbit`, 2·(length + 1) doubles from ``allocateOrbit(steps:)``, which this reference
    /// now owns), its tiny steps and view, but no table, which is built here as the other process would have built it.
    init(
        received context: deep_context, orbit: UnsafeMutablePointer<Double>, largestDelta: deep_real, usesTable: Bool,
        exactView: ExactView
    ) {
        self.context = context
        self.context.orbit = orbit
        self.exactView = exactView
        exactHandle = Self.attachExact(exactView, to: &self.context)
        self.orbit = orbit
        self.largestDelta = largestDelta
        self.usesTable = usesTable
        let tableStart = MonotonicClock.nanoseconds()
        if usesTable { _ = deep_build_table(&self.context, largestDelta, Self.tableTolerance, nil) }
        _ = deep_prepare_lanes(&self.context)
        phases = DeepPhases(
            orbitSeconds: 0, tableSeconds: usesTable ? MonotonicClock.seconds(since: tableStart) : 0,
            orbitLength: Int(context.length), precisionBits: 0, extendedExponent: context.extended != 0)
    }

    /// Reports a reference built beside an earlier render (``ZoomOrbit/prepare(_:buildsTable:)``) as
    /// what it cost the render that takes it: no orbit, and the `seconds` it waited for the table.
    func takenPrepared(waitedSeconds seconds: Double) {
        phases = DeepPhases(
            orbitSeconds: 0, tableSeconds: seconds, orbitLength: phases.orbitLength,
            precisionBits: phases.precisionBits, extendedExponent: phases.extendedExponent,
            orbitPeriod: phases.orbitPeriod)
    }

    /// Adds `seconds` that another process spent building its copy of the table.
    func addTableBuiltElsewhere(seconds: Double) { tableElsewhere.withLock { $0 += seconds } }

    /// The phases for the report: the table's time is the one built here, or, where the workers
    /// are other processes that build their own, theirs.
    var reportedPhases: DeepPhases {
        DeepPhases(
            orbitSeconds: phases.orbitSeconds, tableSeconds: phases.tableSeconds + tableElsewhere.withLock { $0 },
            orbitLength: phases.orbitLength, precisionBits: phases.precisionBits,
            extendedExponent: phases.extendedExponent, orbitPeriod: phases.orbitPeriod)
    }

    deinit {
        deep_free_context(&context)
        free(orbit)
        deep_exact_view_free(exactHandle)
    }

    /// The view in MPFR for `context`'s untrusted pixels. Without memory for it (or with a text
    /// MPFR cannot read, which the options refuse first) those pixels keep their Double counts.
    private static func attachExact(_ view: ExactView, to context: inout deep_context) -> OpaquePointer? {
        let handle = deep_exact_view_new(view.centerReal, view.centerImaginary, view.zoom, view.bits, view.gridSide)
        context.exact = handle
        return handle
    }

    /// Room for an orbit's Z_0 … Z_steps, from the system allocator (free it with `free`): the
    /// orbit as it ended, or as another process or a file has it.
    static func allocateOrbit(steps: Int) throws(RenderFailure) -> UnsafeMutablePointer<Double> {
        try FallibleAllocation.zeroed(Double.self, count: 2 * (steps + 1), for: "a reference orbit of \(steps) steps")
            .baseAddress!
    }

    /// Address space for an orbit of Z_0 … Z_limit while it is computed (`deep_orbit_reserve`;
    /// release it with `deep_orbit_release`): 64 GiB at 4·10⁹ steps, of which only the pages the
    /// orbit writes take memory, so an orbit that stops at its period holds its period's.
    static func reserveOrbit(limit: Int) throws(RenderFailure) -> UnsafeMutablePointer<Double> {
        guard let reserved = deep_orbit_reserve(UInt64(limit)) else {
            throw .outOfMemory(
                bytes: 16 * (limit + 1),
                purpose: "the address space of a reference orbit of --iterations \(limit) steps", available: nil)
        }
        return reserved
    }

    static func scaled(_ value: Double, by factor: deep_real) -> deep_real {
        var exponent: Int32 = 0
        let mantissa = frexp(value * factor.m, &exponent)
        return deep_real(m: mantissa, e: factor.e + Int64(exponent))
    }

    /// Counts `count` samples at zoom-1 offsets `offsets` (real parts) and `offsetImaginary`
    /// from the centre; returns their iterations, and adds the samples counted again in MPFR to `exactPixels`.
    func count(
        offsets: UnsafePointer<Double>, offsetImaginary: Double, count: Int, limit: Int,
        into counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?, exactPixels: ExactPixelTally
    ) -> UInt64 {
        var untrusted: [UInt64] = [0, 0]
        let iterations = withUnsafePointer(to: context) { context in
            deep_count_row(
                context, offsets, offsetImaginary, Int32(count), UInt64(limit), usesTable ? 1 : 0, counts, smooth,
                &untrusted)
        }
        if untrusted[1] > 0 { exactPixels.add(counted: Int(untrusted[0]), untrusted: Int(untrusted[1])) }
        return iterations
    }
}

/// The samples of one render that a deep view's Double steps could not decide: those counted
/// again in MPFR, and those left with their Double counts (too long to count in MPFR).
package final class ExactPixelTally: Sendable {
    private let counts = Locked((counted: 0, untrusted: 0))

    package init() {}

    func add(counted: Int, untrusted: Int) {
        counts.withLock {
            $0.counted += counted
            $0.untrusted += untrusted
        }
    }

    /// The samples counted in MPFR so far.
    package var counted: Int { counts.withLock { $0.counted } }
    /// The samples whose Double counts could not be trusted and stand (past the MPFR budget).
    package var left: Int { counts.withLock { $0.untrusted - $0.counted } }
}

/// An int that C code polls and a cancel handler sets, freed with the last reference to it.
final class StopWord: @unchecked Sendable {
    let word: UnsafeMutablePointer<Int32>

    init(_ set: Bool) {
        word = .allocate(capacity: 1)
        word.initialize(to: set ? 1 : 0)
    }

    func set() { word.pointee = 1 }

    deinit { word.deallocate() }
}
