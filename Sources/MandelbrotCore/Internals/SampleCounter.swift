/// Runs a job's kernel over runs of samples of its grid: the one place tiles get their counts from.
struct SampleCounter: Sendable {
    let grid: SampleGrid
    let kernel: IterationKernel
    /// The limit the kernel runs to (one more than the job's for the Benchmarks Game).
    let limit: Int
    /// The most iterations a sample counts for in the totals.
    let usefulLimit: Int
    let julia: JuliaConstant?

    init(job: RenderJob, grid: SampleGrid) {
        self.grid = grid
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
            kernel.countRow(
                realParts: realParts.baseAddress! + firstColumn, imaginary: grid.imaginaryParts[row], count: count,
                limit: limit, counts: counts, smooth: smooth, usefulLimit: usefulLimit, julia: julia)
        }
    }
}
