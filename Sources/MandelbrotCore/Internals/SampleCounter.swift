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
