import Foundation
public import MandelbrotCore

/// Brightness proportional to the iterations spent on each pixel, on a log scale.
///
/// Pixels that the kernel settled without iterating (the cardioid and bulb
/// shortcut) cost nothing and are black, like pixels that escape at once.
public enum CostMap {
    /// Draws the cost map of a render whose counts were kept.
    ///
    /// - Parameters:
    ///   - counts: Every pixel's escape count.
    ///   - grid: The samples, to recognise the pixels the kernel skipped.
    ///   - kernel: The kernel that rendered them.
    ///   - julia: The Julia constant, or nil for the Mandelbrot set (only it has a shortcut).
    public static func draw(
        counts: IterationCounts, grid: SampleGrid, kernel: IterationKernel, julia: JuliaConstant? = nil
    ) -> RGBPicture {
        let size = counts.size
        var costs = [UInt32](repeating: 0, count: size.pixelCount)
        for y in 0..<size.height {
            for x in 0..<size.width
            where julia != nil || !kernel.skipsIteration(real: grid.realParts[x], imaginary: grid.imaginaryParts[y]) {
                costs[y * size.width + x] = counts[x, y]
            }
        }
        let scale = log1p(Double(costs.max() ?? 0))
        var picture = RGBPicture(width: size.width, height: size.height, color: RGB(0, 0, 0))
        for y in 0..<size.height {
            for x in 0..<size.width {
                let level = scale > 0 ? UInt8((log1p(Double(costs[y * size.width + x])) / scale * 255).rounded()) : 0
                picture[x, y] = RGB(level, level, level)
            }
        }
        return picture
    }
}
