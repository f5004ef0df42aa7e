/// The vectorised row kernel: four `SIMD8<Double>` vectors (32 pixels of a row) iterated together.
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
/// frozen at z = 3. Only the `any` test is batched, every `stepsPerCheck` steps.
enum VectorRowKernel {
    typealias Vector = SIMD8<Double>
    typealias Mask = SIMDMask<SIMD8<Int64>>

    static let lanes = Vector.scalarCount
    static let vectors = 4
    static let stepsPerCheck = 8

    /// Counts a row and returns the sum of `min(count, usefulLimit)`.
    static func countRow(
        realParts: UnsafePointer<Double>, imaginary: Double, count: Int, limit: Int,
        counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?, usefulLimit: Int,
        julia: JuliaConstant?
    ) -> UInt64 {
        let group = lanes * vectors
        // Whole counts below 2^53 add exactly in Double lanes.
        var total = Vector()
        var start = 0
        while start < count {
            let width = min(group, count - start)
            total += countGroup(
                realParts: realParts + start, imaginary: imaginary, width: width, limit: limit,
                counts: counts + start, smooth: smooth.map { $0 + start }, usefulLimit: Double(usefulLimit),
                julia: julia)
            start += width
        }
        return UInt64(total.sum())
    }

    /// Up to 32 pixels of one row, iterated in lock step; returns their capped counts, lane-wise.
    ///
    /// The Mandelbrot set starts every orbit at 0 and adds the pixel; a Julia set starts
    /// at the pixel and adds its constant (and has no cardioid to skip).
    private static func countGroup(
        realParts: UnsafePointer<Double>, imaginary: Double, width: Int, limit: Int,
        counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?, usefulLimit: Double,
        julia: JuliaConstant?
    ) -> Vector {
        let pixelI = Vector(repeating: imaginary)
        let pixelR0 = load(realParts, first: 0, width: width)
        let pixelR1 = load(realParts, first: lanes, width: width)
        let pixelR2 = load(realParts, first: 2 * lanes, width: width)
        let pixelR3 = load(realParts, first: 3 * lanes, width: width)
        let skips = julia == nil
        let iterated0 = lanesToIterate(first: 0, width: width, real: pixelR0, imaginary: pixelI, skipsSet: skips)
        let iterated1 = lanesToIterate(first: lanes, width: width, real: pixelR1, imaginary: pixelI, skipsSet: skips)
        let iterated2 = lanesToIterate(
            first: 2 * lanes, width: width, real: pixelR2, imaginary: pixelI, skipsSet: skips)
        let iterated3 = lanesToIterate(
            first: 3 * lanes, width: width, real: pixelR3, imaginary: pixelI, skipsSet: skips)
        // What each step adds: the pixel (Mandelbrot) or the constant (Julia).
        let addI = julia.map { Vector(repeating: $0.imaginary) } ?? pixelI
        let constantR = julia.map { Vector(repeating: $0.real) }
        let cr0 = constantR ?? pixelR0
        let cr1 = constantR ?? pixelR1
        let cr2 = constantR ?? pixelR2
        let cr3 = constantR ?? pixelR3
        var zr0 = start(pixelR0, iterated0, skips)
        var zi0 = start(pixelI, iterated0, skips)
        var n0 = Vector()
        var zr1 = start(pixelR1, iterated1, skips)
        var zi1 = start(pixelI, iterated1, skips)
        var n1 = Vector()
        var zr2 = start(pixelR2, iterated2, skips)
        var zi2 = start(pixelI, iterated2, skips)
        var n2 = Vector()
        var zr3 = start(pixelR3, iterated3, skips)
        var zi3 = start(pixelI, iterated3, skips)
        var n3 = Vector()
        var done = 0
        while done < limit
            && any(isAlive(zr0, zi0) .| isAlive(zr1, zi1) .| isAlive(zr2, zi2) .| isAlive(zr3, zi3))
        {
            for _ in 0..<min(stepsPerCheck, limit - done) {
                step(&zr0, &zi0, &n0, cr0, addI)
                step(&zr1, &zi1, &n1, cr1, addI)
                step(&zr2, &zi2, &n2, cr2, addI)
                step(&zr3, &zi3, &n3, cr3, addI)
            }
            done += stepsPerCheck
        }
        let ci = julia?.imaginary ?? imaginary
        return store(
            n0, zr0, zi0, cr0, iterated0, first: 0, width: width, limit: limit, imaginary: ci, counts: counts,
            smooth: smooth, usefulLimit: usefulLimit)
            + store(
                n1, zr1, zi1, cr1, iterated1, first: lanes, width: width, limit: limit, imaginary: ci, counts: counts,
                smooth: smooth, usefulLimit: usefulLimit)
            + store(
                n2, zr2, zi2, cr2, iterated2, first: 2 * lanes, width: width, limit: limit, imaginary: ci,
                counts: counts, smooth: smooth, usefulLimit: usefulLimit)
            + store(
                n3, zr3, zi3, cr3, iterated3, first: 3 * lanes, width: width, limit: limit, imaginary: ci,
                counts: counts, smooth: smooth, usefulLimit: usefulLimit)
    }

    /// One part of z₀: 0 for the Mandelbrot set, the pixel's for a Julia set. Lanes that
    /// must not iterate start at 3, outside the radius, so they are frozen from the first step.
    @inline(__always)
    static func start(_ pixel: Vector, _ iterated: Mask, _ isMandelbrot: Bool) -> Vector {
        (isMandelbrot ? Vector() : pixel).replacing(with: 3, where: .!iterated)
    }

    /// The lanes still inside the radius.
    @inline(__always)
    static func isAlive(_ zr: Vector, _ zi: Vector) -> Mask {
        zr * zr + zi * zi .<= 4
    }

    /// One step of every lane inside the radius: count it, then `z ← z² + c`.
    @_transparent
    static func step(_ zr: inout Vector, _ zi: inout Vector, _ n: inout Vector, _ cr: Vector, _ ci: Vector) {
        let zrSquared = zr * zr
        let ziSquared = zi * zi
        let alive = zrSquared + ziSquared .<= 4
        let nextZi = (zr + zr) * zi + ci
        let nextZr = zrSquared - ziSquared + cr
        zi.replace(with: nextZi, where: alive)
        zr.replace(with: nextZr, where: alive)
        n.replace(with: n + 1, where: alive)
    }

    /// Lanes `first ..< first + 8` of the row, padded with 0 past `width`.
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

    /// Writes the counts (and smooth values) of the lanes inside the row, and returns
    /// them capped at `usefulLimit`, with 0 for lanes past the row's end.
    ///
    /// Whole vectors are converted and stored at once: reading a vector lane
    /// by lane makes the compiler spill it and reload 8 bytes per lane, a
    /// failed store-to-load forward each time, which once cost half the kernel.
    @inline(__always)
    static func store(
        _ n: Vector, _ zr: Vector, _ zi: Vector, _ cr: Vector, _ iterated: Mask,
        first: Int, width: Int, limit: Int, imaginary: Double,
        counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?, usefulLimit: Double
    ) -> Vector {
        guard first < width else { return Vector() }
        // A lane that never iterated took the shortcut: it is in the set. The
        // blend is a vector operation; the vector is then spilled once and
        // converted lane by lane (the generic SIMD conversions are per-lane calls).
        let laneCounts = n.replacing(with: Double(limit), where: .!iterated)
        let valid = min(lanes, width - first)
        withUnsafeBytes(of: laneCounts) { bytes in
            let values = bytes.bindMemory(to: Double.self)
            for lane in 0..<valid { counts[first + lane] = UInt32(values[lane]) }
        }
        var useful = laneCounts.replacing(with: usefulLimit, where: laneCounts .> usefulLimit)
        if valid < lanes {
            for lane in valid..<lanes { useful[lane] = 0 }
        }
        guard let smooth else { return useful }
        withUnsafeBytes(of: (zr, zi, cr)) { vectors in
            let values = vectors.bindMemory(to: Double.self)
            for lane in 0..<valid {
                let count = Int(counts[first + lane])
                smooth[first + lane] =
                    count < limit
                    ? SmoothValue.value(
                        afterEscapeAt: count, zr: values[lane], zi: values[lanes + lane],
                        real: values[2 * lanes + lane],
                        imaginary: imaginary)
                    : Float(limit)
            }
        }
        return useful
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
