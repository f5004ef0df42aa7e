/// Runs a job's kernel over runs of samples of its grid: the one place tiles get their counts from.
struct SampleCounter: Sendable {
    let grid: SampleGrid
    let kernel: IterationKernel
    /// The limit the kernel runs to (one more than the job's for the Benchmarks Game).
    let limit: Int
    /// The most iterations a sample counts for in the totals.
    let usefulLimit: Int
    let julia: JuliaConstant?
    /// A deep view's reference orbit and table; the grid then holds zoom-1 offsets from the centre.
    let deep: DeepReference?
    /// The deep samples counted again in MPFR (see ``DeepReference/count(offsets:offsetImaginary:count:limit:into:smooth:exactPixels:)``).
    let exactPixels: ExactPixelTally

    init(job: RenderJob, grid: SampleGrid, deep: DeepReference? = nil, exactPixels: ExactPixelTally = ExactPixelTally())
    {
        self.grid = grid
        self.deep = deep
        self.exactPixels = exactPixels
        kernel = job.kernel
        limit = job.kernelLimit
        usefulLimit = job.iterations
        julia = job.julia
    }

    /// Counts `count` samples of grid row `row` from column `firstColumn`; returns their useful iterations.
    func count(
        row: Int, firstColumn: Int, count: Int, into counts: UnsafeMutablePointer<UInt32>,
        smooth: UnsafeMutablePointer<Float>?
    ) -> UInt64 {
        grid.realParts.withUnsafeBufferPointer { realParts in
            if let deep {
                return deep.count(
                    offsets: realParts.baseAddress! + firstColumn, offsetImaginary: grid.imaginaryParts[row],
                    count: count, limit: limit, into: counts, smooth: smooth, exactPixels: exactPixels)
            }
            return kernel.countRow(
                realParts: realParts.baseAddress! + firstColumn, imaginary: grid.imaginaryParts[row], count: count,
                limit: limit, counts: counts, smooth: smooth, usefulLimit: usefulLimit, julia: julia)
        }
    }

    /// Counts `width` samples from column `firstColumn` of each grid row in `rows`, row after row
    /// into `counts` (and `smooth`); returns their useful iterations.
    ///
    /// The rows' samples go to the kernel together, so that a tile narrower than the vector
    /// kernel's group fills its lanes (a 4-pixel row alone would leave 3/4 or 7/8 of them idle).
    /// `reals` and `imaginaries` are room for `rows.count × width` samples' coordinates.
    func count(
        rows: Range<Int>, firstColumn: Int, width: Int, into counts: UnsafeMutablePointer<UInt32>,
        smooth: UnsafeMutablePointer<Float>?, reals: UnsafeMutablePointer<Double>,
        imaginaries: UnsafeMutablePointer<Double>
    ) -> UInt64 {
        guard deep == nil else {
            // A deep view's deltas go through the C perturbation loop, a row at a time.
            return rows.enumerated().reduce(0) { total, entry in
                total
                    + count(
                        row: entry.element, firstColumn: firstColumn, count: width,
                        into: counts + entry.offset * width, smooth: smooth.map { $0 + entry.offset * width })
            }
        }
        grid.realParts.withUnsafeBufferPointer { realParts in
            for (offset, row) in rows.enumerated() {
                (reals + offset * width).update(from: realParts.baseAddress! + firstColumn, count: width)
                (imaginaries + offset * width).update(repeating: grid.imaginaryParts[row], count: width)
            }
        }
        return kernel.countSamples(
            realParts: reals, imaginaryParts: imaginaries, count: rows.count * width, limit: limit, counts: counts,
            smooth: smooth, usefulLimit: usefulLimit, julia: julia)
    }

    /// Marks `count` samples of grid row `row` from column `firstColumn` in a bilevel
    /// row, at the same column; returns their useful iterations (see ``IterationKernel/markRow``).
    func mark(
        row: Int, firstColumn: Int, count: Int, into pixels: UnsafeMutablePointer<UInt8>,
        scratch: UnsafeMutablePointer<UInt32>
    ) -> UInt64 {
        if deep != nil {
            return markFromCounts(row: row, firstColumn: firstColumn, count: count, into: pixels, scratch: scratch)
        }
        return grid.realParts.withUnsafeBufferPointer { realParts in
            kernel.markRow(
                realParts: realParts.baseAddress! + firstColumn, imaginary: grid.imaginaryParts[row], count: count,
                limit: limit, into: pixels, column: firstColumn, scratch: scratch, usefulLimit: usefulLimit,
                julia: julia)
        }
    }

    /// Counts, then marks the samples whose count reached the limit (for a cost map, which keeps the counts).
    func markFromCounts(
        row: Int, firstColumn: Int, count: Int, into pixels: UnsafeMutablePointer<UInt8>,
        scratch: UnsafeMutablePointer<UInt32>
    ) -> UInt64 {
        let iterations = self.count(row: row, firstColumn: firstColumn, count: count, into: scratch, smooth: nil)
        BilevelRow.write(counts: scratch, count: count, limit: limit, into: pixels, column: firstColumn)
        return iterations
    }
}
