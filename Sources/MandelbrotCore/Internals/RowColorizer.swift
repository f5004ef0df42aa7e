import PaletteLanes

/// Turns one row of escape counts into pixel bytes.
struct RowColorizer {
    let scheme: ColorScheme
    let limit: Int
    let palette: Palette
    /// The image's distribution of smooth values, for histogram colouring.
    let histogram: EscapeHistogram?

    func color(
        counts: UnsafePointer<UInt32>, smooth: UnsafePointer<Float>?, count: Int,
        into pixels: UnsafeMutablePointer<UInt8>
    ) {
        let limit = UInt32(self.limit)
        switch scheme {
        case .bw:
            for index in 0..<count {
                pixels[index] = counts[index] >= limit ? 0 : 255
            }
        case .gray:
            mandel_gray_row(counts, count, limit, pixels)
        case .smooth:
            palette.withColoring { $0.paint(counts: counts, smooth: smooth!, count: count, limit: limit, into: pixels) }
        case .histogram:
            // The palette once over the image: a sample's position in it is
            // the fraction of escaped samples that escaped faster.
            let smooth = smooth!
            let histogram = histogram!
            let distribution = histogram.distribution()
            palette.withColoring { coloring in
                for index in 0..<count {
                    let pixel = pixels + index * 3
                    if counts[index] >= limit {
                        pixel[0] = 0
                        pixel[1] = 0
                        pixel[2] = 0
                    } else {
                        coloring.write(fraction: histogram.fraction(of: smooth[index], in: distribution), into: pixel)
                    }
                }
            }
        }
    }
}
