import LaneBits

/// The vectorised row kernel: four vectors of a row's pixels iterated together, each as
/// wide as the processor's vector registers: `SIMD8<Double>` (32 pixels) where it has
/// 512-bit vectors, `SIMD4<Double>` (16 pixels) elsewhere. Package.swift reads the
/// processor and sets `VECTORS_512`; four `SIMD8` vectors on a 256-bit machine are
/// sixteen registers' worth of each variable, and most of the loop went to spilling them.
///
/// Four independent vectors hide the latency of the multiply–add chain (one
/// step is about 12 cycles of dependent latency, and each vector issues 10
/// operations). The step is `@_transparent`, because the optimiser declined
/// `@inline(__always)` here and an out-of-line step moves every vector through memory.
///
/// Exactness does not rest on any argument about rounding: every lane performs
/// the reference's operations in the reference's order (`zr + zr` is `2·zr`
/// exactly), and a lane counts a step and moves z only while `|z|² ≤ 4`.
/// Once a lane fails the test its z is frozen, so it fails the same test at
/// every later step: death is sticky with no mask to carry, z at the escape
/// step survives for smooth colouring, and nothing overflows into NaN. Lanes
/// that must not iterate (past the row's end, or certainly in the set) start
/// frozen at z = 3. The loop looks at whether any lane is alive after 2, 4, 6 and 8 steps
/// (most groups of the Benchmarks Game picture are done by then), then every `stepsPerCheck`.
///
/// Where only the counts are wanted and a masked move costs an instruction per variable
/// (256-bit vectors have no mask registers: each `replace` is a blend), z runs free
/// instead (`freeStep`): every lane moves z at every step, and where a test fails the new z
/// is made NaN, which fails every later test (arithmetic on a NaN is NaN, and a NaN compares
/// false), and the failure is counted. Up to its first failed test a lane performs exactly
/// the operations of the frozen loop, and it fails every test after, so its count (the steps
/// done less its failures) is the frozen loop's by construction; z after the escape is never
/// read. No mask is carried from step to step, so the loop's twelve vectors fit the sixteen
/// registers. Smooth colouring needs z at the escape, so it always freezes.
enum VectorRowKernel {
    #if VECTORS_512
        typealias Lanes<Scalar: SIMDScalar> = SIMD8<Scalar>
        /// With mask registers, the frozen loop's masked moves cost nothing. Running free, the
        /// compiler keeps the sticky mask in a vector, two more instructions a step: 5% slower on
        /// the Benchmarks Game render and on a deep view in gray (Zen 5; a Xeon).
        static let runsFree = false
    #else
        typealias Lanes<Scalar: SIMDScalar> = SIMD4<Scalar>
        /// Measured on Zen 3: the bare loop 2.4 → 3.0 G steps a second a core, the
        /// Benchmarks Game render 0.82 → 0.71 s (with a sticky mask then; NaN for a failed
        /// lane instead, which spills nothing, took 8% off the render's processor time on
        /// Zen 5 running the four-lane build).
        static let runsFree = true
    #endif
    typealias Vector = Lanes<Double>
    typealias Mask = SIMDMask<Lanes<Int64>>

    static let lanes = Vector.scalarCount
    static let vectors = 4
    static let stepsPerCheck = 4

    /// Counts a row and returns the sum of `min(count, usefulLimit)`.
    static func countRow(
        realParts: UnsafePointer<Double>, imaginary: Double, count: Int, limit: Int,
        counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?, usefulLimit: Int,
        julia: JuliaConstant?
    ) -> UInt64 {
        sumOverGroups(count: count) { start, width in
            countGroup(
                realParts: realParts + start, imaginary: RowImaginaryPart(value: imaginary), width: width,
                limit: limit, counts: counts + start, smooth: smooth.map { $0 + start },
                usefulLimit: Double(usefulLimit), julia: julia)
        }
    }

    /// Counts `count` samples, each with its own real and imaginary part, and returns the sum of
    /// `min(count, usefulLimit)`: the rows of a tile narrower than a group, packed into its lanes,
    /// so that none is left idle. Each lane performs the same operations as in a row, so the
    /// counts and smooth values are the same.
    static func countLanes(
        realParts: UnsafePointer<Double>, imaginaryParts: UnsafePointer<Double>, count: Int, limit: Int,
        counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?, usefulLimit: Int,
        julia: JuliaConstant?
    ) -> UInt64 {
        sumOverGroups(count: count) { start, width in
            countGroup(
                realParts: realParts + start, imaginary: LaneImaginaryParts(parts: imaginaryParts + start),
                width: width, limit: limit, counts: counts + start, smooth: smooth.map { $0 + start },
                usefulLimit: Double(usefulLimit), julia: julia)
        }
    }

    /// Marks a row's pixels in a bilevel row (1 for the set) and returns the sum of
    /// `min(count, usefulLimit)`: black and white needs one bit per pixel, taken from the
    /// lanes' final counts with no count stored. The counts become bits in C (`LaneBits`):
    /// four compares into masks and a bit reversal, where the same fold written
    /// with Swift's SIMD types compiled to about 140 lane-by-lane instructions per group
    /// (11% of the Benchmarks Game render).
    static func markRow(
        realParts: UnsafePointer<Double>, imaginary: Double, count: Int, limit: Int, usefulLimit: Int,
        julia: JuliaConstant?, into row: UnsafeMutablePointer<UInt8>, column: Int
    ) -> UInt64 {
        sumOverGroups(count: count) { start, width in
            let counts = groupCounts(
                realParts: realParts + start, imaginary: RowImaginaryPart(value: imaginary), width: width,
                limit: limit, julia: julia)
            // Lane i of vector k is pixel Lk + i (L lanes a vector), which is bit 31 − (Lk + i).
            let inSet = equalLanes(counts, Double(limit))
            BilevelRow.write(inSet, count: width, into: row, column: column + start)
            return useful(counts.0, first: 0, width: width, usefulLimit: Double(usefulLimit))
                + useful(counts.1, first: lanes, width: width, usefulLimit: Double(usefulLimit))
                + useful(counts.2, first: 2 * lanes, width: width, usefulLimit: Double(usefulLimit))
                + useful(counts.3, first: 3 * lanes, width: width, usefulLimit: Double(usefulLimit))
        }
    }

    /// Calls `group` for each group of a row's `count` pixels in turn (`lanes × vectors`
    /// pixels, fewer in the last), with its first pixel and its width, and returns the sum of
    /// all the lanes `group` returns. Whole counts below 2^53 add exactly in Double lanes.
    @inline(__always)
    private static func sumOverGroups(count: Int, _ group: (_ start: Int, _ width: Int) -> Vector) -> UInt64 {
        var total = Vector()
        var start = 0
        while start < count {
            let width = smaller(lanes * vectors, count - start)
            total += group(start, width)
            start += width
        }
        return UInt64(total.sum())
    }

    /// The orbits of a group of pixels after iterating: four vectors.
    struct Orbits {
        var n: (Vector, Vector, Vector, Vector)
        var zr: (Vector, Vector, Vector, Vector)
        var zi: (Vector, Vector, Vector, Vector)
        var cr: (Vector, Vector, Vector, Vector)
        var iterated: (Mask, Mask, Mask, Mask)
        /// The imaginary part each step adds, per vector: the pixels' own, or a Julia set's constant.
        var ci: (Vector, Vector, Vector, Vector)

        /// Each lane's escape count: a lane that never iterated took the shortcut, so it is in the set.
        @_transparent
        func counts(limit: Int) -> (Vector, Vector, Vector, Vector) {
            let full = Double(limit)
            return (
                n.0.replacing(with: full, where: .!iterated.0), n.1.replacing(with: full, where: .!iterated.1),
                n.2.replacing(with: full, where: .!iterated.2), n.3.replacing(with: full, where: .!iterated.3)
            )
        }
    }

    /// A group of pixels of one row, counted; returns their capped counts, lane-wise.
    @inline(__always)
    private static func countGroup<Imaginary: GroupImaginaryParts>(
        realParts: UnsafePointer<Double>, imaginary: Imaginary, width: Int, limit: Int,
        counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?, usefulLimit: Double,
        julia: JuliaConstant?
    ) -> Vector {
        guard let smooth else {
            let laneCounts = groupCounts(
                realParts: realParts, imaginary: imaginary, width: width, limit: limit, julia: julia)
            func store(_ k: Int, _ laneCounts: Vector) -> Vector {
                Self.store(laneCounts, first: k * lanes, width: width, counts: counts, usefulLimit: usefulLimit)
            }
            return store(0, laneCounts.0) + store(1, laneCounts.1) + store(2, laneCounts.2) + store(3, laneCounts.3)
        }
        let orbits = iterateFrozen(realParts: realParts, imaginary: imaginary, width: width, limit: limit, julia: julia)
        let laneCounts = orbits.counts(limit: limit)
        func store(_ k: Int, _ laneCounts: Vector, _ zr: Vector, _ zi: Vector, _ cr: Vector, _ ci: Vector) -> Vector {
            storeSmooth(laneCounts, zr, zi, cr, ci, first: k * lanes, width: width, limit: limit, smooth: smooth)
            return Self.store(laneCounts, first: k * lanes, width: width, counts: counts, usefulLimit: usefulLimit)
        }
        return store(0, laneCounts.0, orbits.zr.0, orbits.zi.0, orbits.cr.0, orbits.ci.0)
            + store(1, laneCounts.1, orbits.zr.1, orbits.zi.1, orbits.cr.1, orbits.ci.1)
            + store(2, laneCounts.2, orbits.zr.2, orbits.zi.2, orbits.cr.2, orbits.ci.2)
            + store(3, laneCounts.3, orbits.zr.3, orbits.zi.3, orbits.cr.3, orbits.ci.3)
    }

    /// The escape counts of a group of pixels of one row, iterated in lock step, by the
    /// faster loop here (see `runsFree`); the limit for lanes that took the shortcut.
    ///
    /// The Mandelbrot set starts every orbit at 0 and adds the pixel; a Julia set starts
    /// at the pixel and adds its constant (and has no cardioid to skip). Each loop is a
    /// function of its own: sharing one, the free loop spilled its masks and counts and
    /// lost a sixth of its speed. The counts come back in registers, not with the orbits
    /// through memory: 6% of the Benchmarks Game render on Zen 3.
    @inline(__always)
    private static func groupCounts<Imaginary: GroupImaginaryParts>(
        realParts: UnsafePointer<Double>, imaginary: Imaginary, width: Int, limit: Int, julia: JuliaConstant?
    ) -> (Vector, Vector, Vector, Vector) {
        runsFree
            ? countFree(realParts: realParts, imaginary: imaginary, width: width, limit: limit, julia: julia)
            : iterateFrozen(realParts: realParts, imaginary: imaginary, width: width, limit: limit, julia: julia)
                .counts(limit: limit)
    }

    /// A group's counts by the loop named, whichever `runsFree` picks on this machine, so that
    /// each machine's tests hold both loops to the same counts: pixels past `width` are not counted.
    static func groupCounts(
        runningFree: Bool, realParts: UnsafePointer<Double>, imaginary: Double, width: Int, limit: Int,
        julia: JuliaConstant?
    ) -> [UInt32] {
        let row = RowImaginaryPart(value: imaginary)
        let vectors =
            runningFree
            ? countFree(realParts: realParts, imaginary: row, width: width, limit: limit, julia: julia)
            : iterateFrozen(realParts: realParts, imaginary: row, width: width, limit: limit, julia: julia)
                .counts(limit: limit)
        let all = [vectors.0, vectors.1, vectors.2, vectors.3].flatMap { vector in (0..<lanes).map { vector[$0] } }
        return all.prefix(width).map { UInt32($0) }
    }

    /// The group's orbits before the first step: z₀, no steps counted, and which lanes iterate.
    @_transparent
    static func begin<Imaginary: GroupImaginaryParts>(
        realParts: UnsafePointer<Double>, imaginary: Imaginary, width: Int, julia: JuliaConstant?
    ) -> Orbits {
        let pixelI0 = imaginary.vector(first: 0, width: width)
        let pixelI1 = imaginary.vector(first: lanes, width: width)
        let pixelI2 = imaginary.vector(first: 2 * lanes, width: width)
        let pixelI3 = imaginary.vector(first: 3 * lanes, width: width)
        let pixelR0 = load(realParts, first: 0, width: width)
        let pixelR1 = load(realParts, first: lanes, width: width)
        let pixelR2 = load(realParts, first: 2 * lanes, width: width)
        let pixelR3 = load(realParts, first: 3 * lanes, width: width)
        let skips = julia == nil
        let tests = skips && !imaginary.outsideTheShortcut
        let iterated0 = lanesToIterate(first: 0, width: width, real: pixelR0, imaginary: pixelI0, skipsSet: tests)
        let iterated1 = lanesToIterate(first: lanes, width: width, real: pixelR1, imaginary: pixelI1, skipsSet: tests)
        let iterated2 = lanesToIterate(
            first: 2 * lanes, width: width, real: pixelR2, imaginary: pixelI2, skipsSet: tests)
        let iterated3 = lanesToIterate(
            first: 3 * lanes, width: width, real: pixelR3, imaginary: pixelI3, skipsSet: tests)
        // What each step adds: the pixel (Mandelbrot) or the constant (Julia).
        let constantR = julia.map { Vector(repeating: $0.real) }
        let constantI = julia.map { Vector(repeating: $0.imaginary) }
        return Orbits(
            n: (Vector(), Vector(), Vector(), Vector()),
            zr: (
                start(pixelR0, iterated0, skips), start(pixelR1, iterated1, skips), start(pixelR2, iterated2, skips),
                start(pixelR3, iterated3, skips)
            ),
            zi: (
                start(pixelI0, iterated0, skips), start(pixelI1, iterated1, skips), start(pixelI2, iterated2, skips),
                start(pixelI3, iterated3, skips)
            ),
            cr: (constantR ?? pixelR0, constantR ?? pixelR1, constantR ?? pixelR2, constantR ?? pixelR3),
            iterated: (iterated0, iterated1, iterated2, iterated3),
            ci: (constantI ?? pixelI0, constantI ?? pixelI1, constantI ?? pixelI2, constantI ?? pixelI3))
    }

    /// The group's counts, iterated with z running free and made NaN at its first failed test.
    @inline(never)
    private static func countFree<Imaginary: GroupImaginaryParts>(
        realParts: UnsafePointer<Double>, imaginary: Imaginary, width: Int, limit: Int, julia: JuliaConstant?
    ) -> (Vector, Vector, Vector, Vector) {
        var orbits = begin(realParts: realParts, imaginary: imaginary, width: width, julia: julia)
        let (cr0, cr1, cr2, cr3) = orbits.cr
        let (ci0, ci1, ci2, ci3) = orbits.ci
        var (zr0, zr1, zr2, zr3) = orbits.zr
        var (zi0, zi1, zi2, zi3) = orbits.zi
        // Each lane's failed tests: its count is the steps done less these. A lane that does not
        // iterate starts with one, so that a group with none to iterate does no step.
        var failed0 = notIterated(orbits.iterated.0)
        var failed1 = notIterated(orbits.iterated.1)
        var failed2 = notIterated(orbits.iterated.2)
        var failed3 = notIterated(orbits.iterated.3)
        var done = 0
        // The loop goes on while a lane has no failed test (after one, it fails every test).
        while done < limit && anyNone(failed0, failed1, failed2, failed3) {
            let block = blockSteps(after: done)
            for _ in 0..<smaller(block, limit - done) {
                freeStep(&zr0, &zi0, &failed0, cr0, ci0)
                freeStep(&zr1, &zi1, &failed1, cr1, ci1)
                freeStep(&zr2, &zi2, &failed2, cr2, ci2)
                freeStep(&zr3, &zi3, &failed3, cr3, ci3)
            }
            done += block
        }
        let steps = Lanes<Int64>(repeating: Int64(smaller(done, limit)))
        orbits.n = (
            asDouble(steps &- failed0), asDouble(steps &- failed1), asDouble(steps &- failed2),
            asDouble(steps &- failed3)
        )
        return orbits.counts(limit: limit)
    }

    /// 1 in the lanes that do not iterate, 0 in the others.
    @_transparent
    static func notIterated(_ iterated: Mask) -> Lanes<Int64> {
        unsafeBitCast(iterated, to: Lanes<Int64>.self) &+ 1
    }

    /// Whether any lane of four vectors of counts is 0.
    @_transparent
    static func anyNone(_ a: Lanes<Int64>, _ b: Lanes<Int64>, _ c: Lanes<Int64>, _ d: Lanes<Int64>) -> Bool {
        #if VECTORS_512
            // Only the tests run the free loop with eight lanes: a count less one is negative where it was 0.
            let one = Lanes<Int64>(repeating: 1)
            return anyLane((a &- one) | (b &- one) | (c &- one) | (d &- one) .< 0)
        #else
            mandel_any_zero_4(a, b, c, d) != 0
        #endif
    }

    /// The group iterated with each lane frozen at its escape.
    @inline(__always)
    private static func iterateFrozen<Imaginary: GroupImaginaryParts>(
        realParts: UnsafePointer<Double>, imaginary: Imaginary, width: Int, limit: Int, julia: JuliaConstant?
    ) -> Orbits {
        var orbits = begin(realParts: realParts, imaginary: imaginary, width: width, julia: julia)
        let (cr0, cr1, cr2, cr3) = orbits.cr
        let (ci0, ci1, ci2, ci3) = orbits.ci
        var (zr0, zr1, zr2, zr3) = orbits.zr
        var (zi0, zi1, zi2, zi3) = orbits.zi
        var (n0, n1, n2, n3) = orbits.n
        let (iterated0, iterated1, iterated2, iterated3) = orbits.iterated
        // Which lanes were alive at the last step's test: the loop goes on while any was.
        // (A lane that died at that very step costs at most one more block of steps, which
        // leave it as it is.) Reusing the step's own test spares a test per block.
        var alive = union(iterated0, iterated1, iterated2, iterated3)
        var done = 0
        while done < limit && anyLane(alive) {
            let block = blockSteps(after: done)
            for _ in 0..<smaller(block, limit - done) {
                let alive0 = step(&zr0, &zi0, &n0, cr0, ci0)
                let alive1 = step(&zr1, &zi1, &n1, cr1, ci1)
                let alive2 = step(&zr2, &zi2, &n2, cr2, ci2)
                let alive3 = step(&zr3, &zi3, &n3, cr3, ci3)
                alive = union(alive0, alive1, alive2, alive3)
            }
            done += block
        }
        orbits.n = (n0, n1, n2, n3)
        orbits.zr = (zr0, zr1, zr2, zr3)
        orbits.zi = (zi0, zi1, zi2, zi3)
        return orbits
    }

    /// The lanes' counts capped at `usefulLimit`, with 0 for lanes past the row's end.
    @inline(__always)
    static func useful(_ laneCounts: Vector, first: Int, width: Int, usefulLimit: Double) -> Vector {
        var useful = laneCounts.replacing(with: usefulLimit, where: laneCounts .> usefulLimit)
        if first + lanes > width {
            for lane in 0..<lanes where first + lane >= width { useful[lane] = 0 }
        }
        return useful
    }

    /// One part of z₀: 0 for the Mandelbrot set, the pixel's for a Julia set. Lanes that
    /// must not iterate start at 3, outside the radius, so they are frozen from the first step.
    @inline(__always)
    static func start(_ pixel: Vector, _ iterated: Mask, _ isMandelbrot: Bool) -> Vector {
        (isMandelbrot ? Vector() : pixel).replacing(with: 3, where: .!iterated)
    }

    /// Whether any lane of `mask` is set: the standard library's `any` is a call here, once per block of steps.
    @_transparent
    static func anyLane(_ mask: Mask) -> Bool {
        let lanes = unsafeBitCast(mask, to: Lanes<Int64>.self)
        #if VECTORS_512
            let halves = lanes.lowHalf | lanes.highHalf
            let quarters = halves.lowHalf | halves.highHalf
        #else
            let quarters = lanes.lowHalf | lanes.highHalf
        #endif
        return quarters[0] | quarters[1] != 0
    }

    /// Which lanes of the four vectors equal `value`: lane i of vector k is bit 31 − (Lk + i).
    @_transparent
    static func equalLanes(_ vectors: (Vector, Vector, Vector, Vector), _ value: Double) -> UInt32 {
        #if VECTORS_512
            mandel_equal_lanes(vectors.0, vectors.1, vectors.2, vectors.3, value)
        #else
            mandel_equal_lanes_4(vectors.0, vectors.1, vectors.2, vectors.3, value)
        #endif
    }

    /// Whole numbers below 2⁵² as doubles, exactly: 2⁵² + n has n in its low bits.
    @_transparent
    static func asDouble(_ counts: Lanes<Int64>) -> Vector {
        unsafeBitCast(counts &+ Lanes(repeating: 0x4330_0000_0000_0000), to: Vector.self) - 0x1p52
    }

    /// The steps before the next look at the lanes, `done` steps in: 2 up to step 8, where most
    /// groups of a shallow picture are done, then `stepsPerCheck`.
    @_transparent
    static func blockSteps(after done: Int) -> Int { done < 8 ? 2 : stepsPerCheck }

    /// The smaller of two counts. The standard library's `min` stayed a call to its
    /// prespecialised `Int` version between each block of steps, and a call spills every
    /// vector register the loop has live: the call and the reloads were 9% of the Benchmarks
    /// Game render on an AVX-512 Xeon.
    @_transparent
    static func smaller(_ a: Int, _ b: Int) -> Int { a < b ? a : b }

    /// The lanes set in any of four masks.
    @_transparent
    static func union(_ a: Mask, _ b: Mask, _ c: Mask, _ d: Mask) -> Mask { a .| b .| c .| d }

    /// One step of every lane inside the radius: count it, then `z ← z² + c`. Returns the lanes that were inside.
    @_transparent
    @discardableResult
    static func step(_ zr: inout Vector, _ zi: inout Vector, _ n: inout Vector, _ cr: Vector, _ ci: Vector) -> Mask {
        let zrSquared = zr * zr
        let ziSquared = zi * zi
        let alive = zrSquared + ziSquared .<= 4
        let nextZi = (zr + zr) * zi + ci
        let nextZr = zrSquared - ziSquared + cr
        zi.replace(with: nextZi, where: alive)
        zr.replace(with: nextZr, where: alive)
        n.replace(with: n + 1, where: alive)
        return alive
    }

    /// One step with z running free: `z ← z² + c` in every lane and, where the test fails
    /// (`|z|² ≤ 4` does not hold), a failure counted (`failed − (−1)`) and the new real part
    /// made NaN (all bits set). Arithmetic on a NaN gives NaN, and a NaN fails every test: from
    /// its first failure on, a lane fails at every step, with no mask to carry.
    @_transparent
    static func freeStep(
        _ zr: inout Vector, _ zi: inout Vector, _ failed: inout Lanes<Int64>, _ cr: Vector, _ ci: Vector
    ) {
        let zrSquared = zr * zr
        let ziSquared = zi * zi
        let outside = unsafeBitCast(.!(zrSquared + ziSquared .<= 4), to: Lanes<Int64>.self)
        zi = (zr + zr) * zi + ci
        zr = unsafeBitCast(unsafeBitCast(zrSquared - ziSquared + cr, to: Lanes<Int64>.self) | outside, to: Vector.self)
        failed &-= outside
    }

    /// Lanes `first ..< first + lanes` of the row, padded with 0 past `width`.
    @inline(__always)
    static func load(_ realParts: UnsafePointer<Double>, first: Int, width: Int) -> Vector {
        if first + lanes <= width {
            return UnsafeRawPointer(realParts + first).loadUnaligned(as: Vector.self)
        }
        var partial = Vector()
        for lane in 0..<lanes where first + lane < width { partial[lane] = realParts[first + lane] }
        return partial
    }

    /// The lanes that iterate: inside the row and, when `skipsSet`, not certainly in the set.
    @inline(__always)
    static func lanesToIterate(first: Int, width: Int, real: Vector, imaginary: Vector, skipsSet: Bool) -> Mask {
        var inRow = Mask(repeating: true)
        if first + lanes > width {
            for lane in 0..<lanes { inRow[lane] = first + lane < width }
        }
        return skipsSet ? inRow .& .!certainlyInside(real: real, imaginary: imaginary) : inRow
    }

    /// Points that are certainly in the set: inside the main cardioid or the period-2 bulb.
    ///
    /// The margins shrink both regions slightly, so only points whose orbits
    /// converge strongly take the shortcut; points near the boundary iterate.
    @inline(__always)
    static func certainlyInside(real x: Vector, imaginary y: Vector) -> Mask {
        let y2 = y * y
        let shifted = x - 0.25
        let q = shifted * shifted + y2
        let cardioid = q * (q + shifted) .< 0.25 * y2 - 1e-9
        let bulbX = x + 1
        let bulb = bulbX * bulbX + y2 .< 0.0625 - 1e-9
        return cardioid .| bulb
    }

    /// Writes the counts of the lanes inside the row, and returns them capped at
    /// `usefulLimit`, with 0 for lanes past the row's end.
    ///
    /// A whole vector of counts is converted and stored at once: a count is a whole
    /// number below 2³², so adding 2⁵² puts it in the low bits of the sum's bit pattern,
    /// and narrowing those is one vector shuffle (the generic SIMD conversions are
    /// per-lane calls).
    @inline(__always)
    static func store(
        _ laneCounts: Vector, first: Int, width: Int, counts: UnsafeMutablePointer<UInt32>, usefulLimit: Double
    ) -> Vector {
        guard first < width else { return Vector() }
        let valid = min(lanes, width - first)
        let wide = unsafeBitCast(laneCounts + 0x1p52, to: Lanes<UInt64>.self)
        let narrow = Lanes<UInt32>(truncatingIfNeeded: wide)
        if valid == lanes {
            UnsafeMutableRawPointer(counts + first).storeBytes(of: narrow, as: Lanes<UInt32>.self)
        } else {
            for lane in 0..<valid { counts[first + lane] = narrow[lane] }
        }
        return useful(laneCounts, first: first, width: width, usefulLimit: usefulLimit)
    }

    /// Writes the smooth values of the lanes inside the row, from their frozen orbits.
    @inline(__always)
    static func storeSmooth(
        _ laneCounts: Vector, _ zr: Vector, _ zi: Vector, _ cr: Vector, _ ci: Vector,
        first: Int, width: Int, limit: Int, smooth: UnsafeMutablePointer<Float>
    ) {
        guard first < width else { return }
        let valid = min(lanes, width - first)
        // The escaped lanes' orbits go on for smooth colouring, every lane at once with
        // `SmoothValue`'s operations and its test; only the logarithms are lane by lane.
        let full = Double(limit)
        var zr = zr
        var zi = zi
        var steps = laneCounts
        var going = laneCounts .< full
        for _ in 0..<SmoothValue.extraSteps {
            let zrSquared = zr * zr
            let ziSquared = zi * zi
            going .&= zrSquared + ziSquared .< SmoothValue.largeModulusSquared
            let nextZi = 2 * zr * zi + ci
            let nextZr = zrSquared - ziSquared + cr
            zi.replace(with: nextZi, where: going)
            zr.replace(with: nextZr, where: going)
            steps.replace(with: steps + 1, where: going)
        }
        let modulusSquared = zr * zr + zi * zi
        for lane in 0..<valid {
            smooth[first + lane] =
                laneCounts[lane] < full
                ? SmoothValue.value(steps: Int(steps[lane]), modulusSquared: modulusSquared[lane]) : Float(limit)
        }
    }
}

extension IterationKernel {
    /// Whether this kernel settles c without iterating (the cardioid and bulb shortcut).
    ///
    /// The same test as the vector kernel's, lane for lane; the scalar kernel never skips.
    public func skipsIteration(real: Double, imaginary: Double) -> Bool {
        guard self == .simd else { return false }
        let mask = VectorRowKernel.certainlyInside(real: .init(repeating: real), imaginary: .init(repeating: imaginary))
        return mask[0]
    }
}
