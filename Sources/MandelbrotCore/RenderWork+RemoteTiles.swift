import AtomicShim
import Platform

// A tile rendered by another process: the work describes itself as a recipe, and takes
// back a tile's result, checked, into the render's buffers.

extension RenderWork {
    /// Everything another process needs to render this pass's tiles with the same bytes.
    package var tileRecipe: TileRecipe {
        switch renderer {
        case let counting as CountingTileRenderer:
            return TileRecipe(
                kind: .counting, samples: counting.samples, colorizer: nil, supersampling: counting.supersampling,
                format: .gray, keepsCounts: false, histogram: counting.histogram)
        case let pixels as PixelTileRenderer:
            return colouringRecipe(.pixels, samples: pixels.samples, colorizer: pixels.colorizer, supersampling: 1)
        case let supersampled as SupersampledTileRenderer:
            return colouringRecipe(
                .supersampled, samples: supersampled.samples, colorizer: supersampled.colorizer,
                supersampling: supersampled.supersampling)
        default:
            preconditionFailure("a renderer that has no recipe")
        }
    }

    private func colouringRecipe(
        _ kind: TileRecipe.Kind, samples: SampleCounter, colorizer: RowColorizer, supersampling: Int
    ) -> TileRecipe {
        let target = pipeline.target(for: picturePlan.band(of: firstTile))!
        return TileRecipe(
            kind: kind, samples: samples, colorizer: colorizer, supersampling: supersampling,
            format: target.canvas.format, keepsCounts: target.counts != nil,
            histogram: colorizer.scheme == .histogram ? colorizer.histogram : nil)
    }

    /// Tile `index`'s pixels, in picture coordinates: what to ask another process for.
    package func rect(ofTile index: Int) -> PixelRect {
        precondition(index >= 0 && index < plan.tileCount, "tile outside the plan")
        return picturePlan.rect(of: firstTile + index)
    }

    /// Takes tile `index`'s result, rendered elsewhere from ``tileRecipe``, into the render:
    /// its pixel rows into the band's buffer (or its bins into the histogram), and its record.
    ///
    /// The result is checked whole before any byte of it is used: its length, and for the
    /// counting pass every bin. What the other process says it cost is bounded too.
    ///
    /// - Parameters:
    ///   - result: The tile's result, as ``TileRecipe/render(_:appendingTo:workspace:proceed:)`` wrote it.
    ///   - iterations, start, end: What the tile cost, and when (monotonic clock, which processes share).
    /// - Returns: false if the render was cancelled first (nothing is written then).
    /// - Throws: When the result is malformed: the tile counts as not done.
    package func finishTile(
        _ index: Int, result: UnsafeRawBufferPointer, iterations: UInt64, start: UInt64, end: UInt64
    ) throws(WireReader.Malformed) -> Bool {
        guard !isCancelled else { return false }
        let rect = rect(ofTile: index)
        let tile = firstTile + index
        let band = picturePlan.band(of: tile)
        let now = MonotonicClock.nanoseconds()
        guard start <= end, end <= now else { throw .init("tile times \(start)…\(end) after now (\(now))") }
        switch renderer {
        case let counting as CountingTileRenderer:
            let samples = rect.pixelCount * counting.supersampling * counting.supersampling
            guard iterations <= UInt64(samples) * UInt64(counting.samples.usefulLimit) else {
                throw .init("\(iterations) iterations for \(samples) samples")
            }
            try add(bins: result, samples: samples, to: counting.histogram)
            guard pipeline.acquire(band, givingUpOnCancel: cancellationMode == .flag) else { return false }
        default:
            let recipe = tileRecipe
            guard result.count == recipe.resultBytes(for: rect) else {
                throw .init("\(result.count) bytes for tile \(rect), which has \(recipe.resultBytes(for: rect))")
            }
            let samples = rect.pixelCount * recipe.supersampling * recipe.supersampling
            guard iterations <= UInt64(samples) * UInt64(recipe.samples.usefulLimit) else {
                throw .init("\(iterations) iterations for \(samples) samples")
            }
            guard pipeline.acquire(band, givingUpOnCancel: cancellationMode == .flag) else { return false }
            write(result, of: rect, rowBytes: recipe.rowBytes(for: rect), into: pipeline.target(for: band)!)
        }
        let worker = registry.currentWorker()
        onTileFinished?()
        pipeline.tileFinished(tile, band: band, worker: worker, start: start, end: end, iterations: iterations)
        if blockingWait > 0 { SystemThread.sleep(nanoseconds: blockingWait) }
        return true
    }

    /// Adds a counting tile's bins to the histogram, once every one is checked.
    private func add(
        bins result: UnsafeRawBufferPointer, samples: Int, to histogram: EscapeHistogram
    ) throws(WireReader.Malformed) {
        var reader = WireReader(result)
        let count = try reader.readCount(in: 0...samples, "escaped samples")
        let raw = try reader.readBytes(count * 4)
        try reader.expectEnd()
        var bins = [UInt32](repeating: 0, count: count)
        bins.withUnsafeMutableBytes { $0.copyMemory(from: raw) }
        let binCount = UInt32(histogram.binCount)
        guard bins.allSatisfy({ $0 < binCount }) else { throw .init("a bin outside the histogram's \(binCount)") }
        var batch = histogram.makeBatch()
        for bin in bins {
            batch.bins.append(bin)
            if batch.bins.count == histogram.sharing.batch { histogram.merge(&batch) }
        }
        histogram.finish(&batch)
    }

    /// Copies a colouring tile's rows (and escape counts) into its band; the outer bytes of a
    /// bilevel row, which a neighbour may share, take only the tile's own bits.
    private func write(_ result: UnsafeRawBufferPointer, of rect: PixelRect, rowBytes: Int, into target: BandTarget) {
        let canvas = target.canvas
        let source = result.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for row in 0..<rect.height {
            let from = source + row * rowBytes
            let bandRow = rect.y + row - target.firstRow
            if canvas.format == .bilevel {
                let to = canvas.row(bandRow) + rect.x / 8
                for byte in 0..<rowBytes {
                    let first = max(rect.x, (rect.x / 8 + byte) * 8)
                    let last = min(rect.maxX, (rect.x / 8 + byte + 1) * 8)
                    // The bits of pixels first..<last, the leftmost in the high bit.
                    let mask = UInt8(truncatingIfNeeded: 0xFF00 >> (last - first)) >> UInt8(first % 8)
                    if mask == 0xFF {
                        to[byte] = from[byte]
                    } else {
                        mandel_update_bits(to + byte, mask, from[byte] & mask)
                    }
                }
            } else {
                canvas.address(x: rect.x, y: bandRow).update(from: from, count: rowBytes)
            }
        }
        if let counts = target.counts {
            let countBytes = source + rect.height * rowBytes
            for row in 0..<rect.height {
                let to = UnsafeMutableRawPointer(counts.address(x: rect.x, y: rect.y + row - target.firstRow))
                to.copyMemory(from: countBytes + row * rect.width * 4, byteCount: rect.width * 4)
            }
        }
    }
}
