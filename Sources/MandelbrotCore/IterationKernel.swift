/// The code that computes escape counts: the plain scalar loop, or the vectorised one.
///
/// Both give exactly `EscapeTime.count` for every pixel; they differ only in speed.
public enum IterationKernel: String, Sendable, CaseIterable {
    /// One pixel at a time, exactly as ``EscapeTime/count(real:imaginary:limit:)`` reads.
    case scalar
    /// Four vectors of pixels at a time, as wide as the processor's registers (32 pixels with
    /// 512-bit vectors, 16 with 256-bit ones), with the main-cardioid and period-2-bulb shortcut.
    case simd

    /// How many pixels the vector kernel iterates together: its group.
    package static var vectorGroupWidth: Int { VectorRowKernel.lanes * VectorRowKernel.vectors }

    /// The counts of up to ``vectorGroupWidth`` pixels of one row by one of the vector kernel's two
    /// loops: z frozen at each lane's escape, or running free with a sticky mask (what each machine
    /// uses where no smooth value is wanted depends on its vector registers). For tests.
    package static func vectorGroupCounts(
        runningFree: Bool, realParts: [Double], imaginary: Double, limit: Int, julia: JuliaConstant? = nil
    ) -> [UInt32] {
        precondition((1...vectorGroupWidth).contains(realParts.count) && limit > 0)
        return realParts.withUnsafeBufferPointer { reals in
            VectorRowKernel.groupCounts(
                runningFree: runningFree, realParts: reals.baseAddress!, imaginary: imaginary, width: reals.count,
                limit: limit, julia: julia)
        }
    }

    /// Writes the escape counts of `count` consecutive pixels of one row, and
    /// their smooth values when `smooth` is not nil.
    ///
    /// - Parameters:
    ///   - realParts: The real part of each pixel's sample.
    ///   - imaginary: The row's imaginary part.
    ///   - count: How many pixels.
    ///   - limit: The iteration limit; traps unless positive.
    ///   - counts: Where the counts go.
    ///   - smooth: Where the smooth values go, or nil.
    ///   - usefulLimit: The most iterations a pixel counts for in the returned total
    ///     (the limit itself, or one less for the Benchmarks Game's extra check); `limit` by default.
    ///   - julia: For a Julia set, its constant: each orbit starts at its pixel and adds it;
    ///     nil (the default) for the Mandelbrot set.
    /// - Returns: The sum over the pixels of `min(count, usefulLimit)`.
    @discardableResult
    public func countRow(
        realParts: UnsafePointer<Double>, imaginary: Double, count: Int, limit: Int,
        counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?, usefulLimit: Int? = nil,
        julia: JuliaConstant? = nil
    ) -> UInt64 {
        precondition(limit > 0, "the iteration limit must be positive")
        let cap = usefulLimit ?? limit
        switch self {
        case .scalar:
            RowKernel.countRow(
                realParts: realParts, imaginary: imaginary, count: count, limit: limit, julia: julia, counts: counts,
                smooth: smooth)
            var total: UInt64 = 0
            for index in 0..<count { total += UInt64(min(Int(counts[index]), cap)) }
            return total
        case .simd:
            return VectorRowKernel.countRow(
                realParts: realParts, imaginary: imaginary, count: count, limit: limit, counts: counts, smooth: smooth,
                usefulLimit: cap, julia: julia)
        }
    }

    /// Writes the escape counts of `count` samples, each with its own real and imaginary part, and
    /// their smooth values when `smooth` is not nil: ``countRow(realParts:imaginary:count:limit:counts:smooth:usefulLimit:julia:)``
    /// for samples of several rows, such as the rows of a tile narrower than the vector kernel's group, which
    /// it packs into its lanes so that none idles. The counts are the same as row by row.
    ///
    /// - Parameters:
    ///   - imaginaryParts: Each sample's imaginary part; the other parameters as for `countRow`.
    /// - Returns: The sum over the samples of `min(count, usefulLimit)`.
    @discardableResult
    package func countSamples(
        realParts: UnsafePointer<Double>, imaginaryParts: UnsafePointer<Double>, count: Int, limit: Int,
        counts: UnsafeMutablePointer<UInt32>, smooth: UnsafeMutablePointer<Float>?, usefulLimit: Int? = nil,
        julia: JuliaConstant? = nil
    ) -> UInt64 {
        precondition(limit > 0, "the iteration limit must be positive")
        guard self == .simd else {
            // The scalar kernel takes one pixel at a time anyway: each sample is a row of one.
            return (0..<count).reduce(0) { total, index in
                total
                    + countRow(
                        realParts: realParts + index, imaginary: imaginaryParts[index], count: 1, limit: limit,
                        counts: counts + index, smooth: smooth.map { $0 + index }, usefulLimit: usefulLimit,
                        julia: julia)
            }
        }
        return VectorRowKernel.countLanes(
            realParts: realParts, imaginaryParts: imaginaryParts, count: count, limit: limit, counts: counts,
            smooth: smooth, usefulLimit: usefulLimit ?? limit, julia: julia)
    }

    /// Marks `count` consecutive pixels of one row in a bilevel row (see ``PixelFormat/bilevel``):
    /// a 1 bit where the escape count reaches `limit`, a 0 elsewhere, the pixels' bits placed
    /// from column `column` of `pixels`; the row's other bits are left as they are.
    ///
    /// - Parameters:
    ///   - scratch: Room for `count` counts, which the scalar kernel counts into first;
    ///     the vector kernel marks from its lanes and leaves it alone.
    /// - Returns: The sum over the pixels of `min(count, usefulLimit)`.
    @discardableResult
    public func markRow(
        realParts: UnsafePointer<Double>, imaginary: Double, count: Int, limit: Int,
        into pixels: UnsafeMutablePointer<UInt8>, column: Int, scratch: UnsafeMutablePointer<UInt32>,
        usefulLimit: Int? = nil, julia: JuliaConstant? = nil
    ) -> UInt64 {
        precondition(limit > 0, "the iteration limit must be positive")
        switch self {
        case .scalar:
            let total = countRow(
                realParts: realParts, imaginary: imaginary, count: count, limit: limit, counts: scratch, smooth: nil,
                usefulLimit: usefulLimit, julia: julia)
            BilevelRow.write(counts: scratch, count: count, limit: limit, into: pixels, column: column)
            return total
        case .simd:
            return VectorRowKernel.markRow(
                realParts: realParts, imaginary: imaginary, count: count, limit: limit,
                usefulLimit: usefulLimit ?? limit, julia: julia, into: pixels, column: column)
        }
    }
}
