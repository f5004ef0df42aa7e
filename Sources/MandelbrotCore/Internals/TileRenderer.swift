/// What one pass does to one tile: the pixel loops, one type per pass.
///
/// A renderer only computes; which thread calls it, and when, is the
/// strategy's business, and where the pixels go is the band pipeline's.
protocol TileRenderer: Sendable {
    /// Renders `rect` (picture coordinates) into `target`, checking `isCancelled`
    /// between segments of rows.
    ///
    /// - Returns: The tile's useful iterations, or nil if it stopped because of a cancel.
    func render(_ rect: PixelRect, into target: BandTarget?, isCancelled: () -> Bool) -> UInt64?
}

/// Where a colouring pass writes a band: its buffer, and the picture row that the buffer's first row holds.
struct BandTarget {
    let canvas: PixelBuffer
    let firstRow: Int
    /// Every pixel's escape count, kept for the cost map; only for a picture rendered whole.
    let counts: IterationCounts?
}

/// The most samples counted between two looks at the cancel flag (a multiple of the vector kernel's 32).
let segmentWidth = 256

// MARK: - Counting

/// Histogram colouring's first pass: every sample of the tile (k×k per pixel when
/// supersampling) counted into the histogram; no pixel is written.
struct CountingTileRenderer: TileRenderer {
    let samples: SampleCounter
    let histogram: EscapeHistogram
    let supersampling: Int

    func render(_ rect: PixelRect, into target: BandTarget?, isCancelled: () -> Bool) -> UInt64? {
        let k = supersampling
        let segment = min(rect.width * k, segmentWidth)
        var batch = histogram.makeBatch()
        // Finished before the tile counts as done, so before the pass's completion and the seal.
        defer { histogram.finish(&batch) }
        var iterations: UInt64 = 0
        let finished = withUnsafeTemporaryAllocation(byteCount: segment * 8, alignment: 8) { scratch in
            let counts = scratch.baseAddress!.bindMemory(to: UInt32.self, capacity: segment)
            let smooth = (scratch.baseAddress! + segment * 4).bindMemory(to: Float.self, capacity: segment)
            for row in (rect.y * k)..<(rect.maxY * k) {
                for left in stride(from: rect.x * k, to: rect.maxX * k, by: segmentWidth) {
                    if isCancelled() { return false }
                    let width = min(segmentWidth, rect.maxX * k - left)
                    iterations += samples.count(row: row, firstColumn: left, count: width, into: counts, smooth: smooth)
                    histogram.add(counts: counts, values: smooth, count: width, limit: samples.limit, to: &batch)
                }
            }
            return true
        }
        return finished ? iterations : nil
    }
}

// MARK: - One sample per pixel

/// Kernel, then colouring, segment by segment of each row.
struct PixelTileRenderer: TileRenderer {
    let samples: SampleCounter
    let colorizer: RowColorizer

    func render(_ rect: PixelRect, into target: BandTarget?, isCancelled: () -> Bool) -> UInt64? {
        let target = target!
        if rect.width < IterationKernel.vectorGroupWidth && target.canvas.format != .bilevel {
            return renderPacked(rect, into: target, isCancelled: isCancelled)
        }
        let wantsSmooth = colorizer.scheme.needsSmoothValues
        let segment = min(rect.width, segmentWidth)
        var iterations: UInt64 = 0
        let finished = withUnsafeTemporaryAllocation(byteCount: segment * 8, alignment: 8) { scratch in
            let counts = scratch.baseAddress!.bindMemory(to: UInt32.self, capacity: segment)
            let smooth =
                wantsSmooth ? (scratch.baseAddress! + segment * 4).bindMemory(to: Float.self, capacity: segment) : nil
            for y in rect.y..<rect.maxY {
                let bandRow = y - target.firstRow
                // Segments bound the work between two looks at the cancel flag,
                // however wide the tile and however high the iteration limit.
                for left in stride(from: rect.x, to: rect.maxX, by: segmentWidth) {
                    if isCancelled() { return false }
                    let width = min(segmentWidth, rect.maxX - left)
                    if target.canvas.format == .bilevel {
                        // One bit per pixel, from the kernel's lanes; counts only for a cost map.
                        let row = target.canvas.row(bandRow)
                        if let keep = target.counts {
                            iterations += samples.markFromCounts(
                                row: y, firstColumn: left, count: width, into: row, scratch: counts)
                            keep.address(x: left, y: bandRow).update(from: counts, count: width)
                        } else {
                            iterations += samples.mark(
                                row: y, firstColumn: left, count: width, into: row, scratch: counts)
                        }
                        continue
                    }
                    iterations += samples.count(row: y, firstColumn: left, count: width, into: counts, smooth: smooth)
                    target.counts?.address(x: left, y: bandRow).update(from: counts, count: width)
                    colorizer.color(
                        counts: counts, smooth: smooth.map { UnsafePointer($0) }, count: width,
                        into: target.canvas.address(x: left, y: bandRow))
                }
            }
            return true
        }
        return finished ? iterations : nil
    }
}

extension PixelTileRenderer {
    /// A tile narrower than the vector kernel's group: as many of its rows at once as fill a
    /// segment, their samples packed into the kernel's lanes, then each row coloured.
    ///
    /// Row by row, a 4-pixel-wide tile kept 4 of the group's 16 or 32 lanes busy, and every
    /// tile cost several times its pixels: the cost `sweep --tile` showed at small tiles was
    /// mostly that, not the mechanisms'.
    private func renderPacked(_ rect: PixelRect, into target: BandTarget, isCancelled: () -> Bool) -> UInt64? {
        let width = rect.width
        // No more room than the tile needs: a 1x1 tile's scratch is 24 bytes, not a segment's 6 KiB.
        let rowsAtOnce = min(rect.height, max(1, segmentWidth / width))
        let capacity = rowsAtOnce * width
        let wantsSmooth = colorizer.scheme.needsSmoothValues
        var iterations: UInt64 = 0
        // The 8-byte coordinates first, then the counts and the smooth values.
        let finished = withUnsafeTemporaryAllocation(byteCount: capacity * 24, alignment: 8) { scratch in
            let reals = scratch.baseAddress!.bindMemory(to: Double.self, capacity: capacity)
            let imaginaries = (scratch.baseAddress! + capacity * 8).bindMemory(to: Double.self, capacity: capacity)
            let counts = (scratch.baseAddress! + capacity * 16).bindMemory(to: UInt32.self, capacity: capacity)
            let smooth =
                wantsSmooth
                ? (scratch.baseAddress! + capacity * 20).bindMemory(to: Float.self, capacity: capacity) : nil
            for top in stride(from: rect.y, to: rect.maxY, by: rowsAtOnce) {
                if isCancelled() { return false }
                let rows = top..<min(top + rowsAtOnce, rect.maxY)
                iterations += samples.count(
                    rows: rows, firstColumn: rect.x, width: width, into: counts, smooth: smooth, reals: reals,
                    imaginaries: imaginaries)
                for (offset, y) in rows.enumerated() {
                    let bandRow = y - target.firstRow
                    let first = offset * width
                    target.counts?.address(x: rect.x, y: bandRow).update(from: counts + first, count: width)
                    colorizer.color(
                        counts: counts + first, smooth: smooth.map { UnsafePointer($0 + first) }, count: width,
                        into: target.canvas.address(x: rect.x, y: bandRow))
                }
            }
            return true
        }
        return finished ? iterations : nil
    }
}

// MARK: - Supersampling

/// k×k samples per pixel: each sample coloured, then averaged in linear light.
///
/// The sums run in the same order whichever thread renders the tile, so the
/// pixels are the same for every strategy.
struct SupersampledTileRenderer: TileRenderer {
    let samples: SampleCounter
    let colorizer: RowColorizer
    let supersampling: Int

    func render(_ rect: PixelRect, into target: BandTarget?, isCancelled: () -> Bool) -> UInt64? {
        let target = target!
        let k = supersampling
        let channels = target.canvas.channels
        let wantsSmooth = colorizer.scheme.needsSmoothValues
        let pixelsPerSegment = max(1, segmentWidth / k)
        let pixels = min(rect.width, pixelsPerSegment)
        let samplesPerRow = pixels * k
        // One scratch block per tile, carved into its arrays (the 8-byte ones first):
        // light per channel, cost per pixel, then count, smooth value and colour per sample.
        let lightBytes = pixels * channels * 8
        let costBytes = pixels * 8
        let countBytes = samplesPerRow * 4
        let smoothBytes = samplesPerRow * 4
        let scratchBytes = lightBytes + costBytes + countBytes + smoothBytes + samplesPerRow * channels
        var iterations: UInt64 = 0
        let finished = withUnsafeTemporaryAllocation(byteCount: scratchBytes, alignment: 8) { scratch in
            var next = scratch.baseAddress!
            func carve<T>(_ type: T.Type, _ count: Int) -> UnsafeMutablePointer<T> {
                defer { next += count * MemoryLayout<T>.stride }
                return next.bindMemory(to: T.self, capacity: count)
            }
            let light = carve(Double.self, pixels * channels)
            let costs = carve(UInt64.self, pixels)
            let counts = carve(UInt32.self, samplesPerRow)
            let smoothValues = carve(Float.self, samplesPerRow)
            let colors = carve(UInt8.self, samplesPerRow * channels)
            let smooth = wantsSmooth ? smoothValues : nil
            let sampleCount = Double(k * k)
            for y in rect.y..<rect.maxY {
                let bandRow = y - target.firstRow
                for left in stride(from: rect.x, to: rect.maxX, by: pixelsPerSegment) {
                    if isCancelled() { return false }
                    let width = min(pixelsPerSegment, rect.maxX - left)
                    light.update(repeating: 0, count: width * channels)
                    costs.update(repeating: 0, count: width)
                    for subRow in 0..<k {
                        iterations += samples.count(
                            row: y * k + subRow, firstColumn: left * k, count: width * k, into: counts, smooth: smooth)
                        colorizer.color(
                            counts: counts, smooth: smooth.map { UnsafePointer($0) }, count: width * k, into: colors)
                        // Each pixel's light gathers its k samples of this sub-row in order,
                        // in a register rather than through memory.
                        LinearLight.fromSRGB.withUnsafeBufferPointer { fromSRGB in
                            for pixel in 0..<width {
                                let first = pixel * k
                                for channel in 0..<channels {
                                    var sum = light[pixel * channels + channel]
                                    for sample in first..<(first + k) {
                                        sum += fromSRGB[Int(colors[sample * channels + channel])]
                                    }
                                    light[pixel * channels + channel] = sum
                                }
                                for sample in first..<(first + k) { costs[pixel] += UInt64(counts[sample]) }
                            }
                        }
                    }
                    let output = target.canvas.address(x: left, y: bandRow)
                    for value in 0..<(width * channels) {
                        output[value] = LinearLight.toSRGB(light[value] / sampleCount)
                    }
                    if let keep = target.counts {
                        // A pixel's cost is every sample's iterations.
                        let kept = keep.address(x: left, y: bandRow)
                        for pixel in 0..<width { kept[pixel] = UInt32(min(costs[pixel], UInt64(UInt32.max))) }
                    }
                }
            }
            return true
        }
        return finished ? iterations : nil
    }
}
