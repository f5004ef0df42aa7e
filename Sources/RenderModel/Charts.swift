package import Comparison
import MandelOptions
package import MandelbrotCore
import Platform

/// The charts `compare --chart` and `sweep --chart` write.
package enum Charts {
    /// One bar per strategy: median wall time, whiskers from min to max.
    package static func compare(_ comparison: StrategyComparison, job: RenderJob) -> String {
        let fastest = comparison.hasVerdicts ? comparison.fastest.strategy : nil
        let bars = comparison.results.map { result in
            SVGChart.Bar(
                label: result.strategy, value: result.wall.median * 1000, low: result.wall.min * 1000,
                high: result.wall.max * 1000, highlighted: result.strategy == fastest)
        }
        let runs = comparison.results[0].wall.values.count
        return SVGChart.bars(
            title: "mandel compare: wall time per strategy",
            subtitle:
                "\(job.size), \(job.iterations) iterations, \(job.splitLabel), \(WorkloadText.workers(job)); \(runs) "
                + "runs each, \(MachineDescription().cpu)",
            valueLabel: "wall time (ms), shorter is better", bars: bars)
    }

    /// One line per strategy over the swept axis.
    package static func sweep(_ points: [SweepPoint], axis: SweepAxis, job: RenderJob) -> String {
        var names = points.first?.comparison.results.map(\.strategy) ?? []
        // The merge chart leaves out the baseline's own rows (serial/queue, …) when there are
        // others: the question is how each mechanism fares under the strategy measured.
        if axis == .mergeBatch, let results = points.first?.comparison.results {
            let others = results.filter { $0.baseline != $0.strategy }.map(\.strategy)
            if !others.isEmpty { names = others }
        }
        let series = names.map { name in
            SVGChart.Series(
                name: name,
                points: points.compactMap { point in
                    guard let result = point.comparison.results.first(where: { $0.strategy == name }) else {
                        return nil
                    }
                    switch axis {
                    case .workers: return (point.value, point.comparison.speedup(of: result) ?? 0)
                    case .tile, .tileWait: return (point.value, result.wall.median * 1000)
                    case .mergeBatch:
                        guard let merge = result.behaviour.merge else { return nil }
                        // The floor keeps a cost too small to measure on the logarithmic axis.
                        return (point.value, max(0.001, (merge.mergeSeconds + merge.waitSeconds) * 1000))
                    }
                })
        }
        switch axis {
        case .workers:
            return SVGChart.lines(
                title: "mandel sweep: speedup against workers",
                subtitle:
                    "\(job.size), \(job.iterations) iterations, \(job.splitLabel); speedup = "
                    + "\(points.first?.comparison.baselineName ?? "baseline") median / strategy median",
                xLabel: "workers", yLabel: "speedup over \(points.first?.comparison.baselineName ?? "baseline")",
                logarithmicX: false, series: series)
        case .tile:
            return SVGChart.lines(
                title: "mandel sweep: wall time against tile size",
                subtitle:
                    "\(job.size), \(job.iterations) iterations, \(job.workers) workers; square tiles, side in pixels",
                xLabel: "tile side (pixels)", yLabel: "median wall time (ms)", logarithmicX: true, logarithmicY: true,
                series: series)
        case .tileWait:
            return SVGChart.lines(
                title: "mandel sweep: wall time against each tile's wait",
                subtitle:
                    "\(job.size), \(job.iterations) iterations, \(job.splitLabel), \(WorkloadText.workers(job)); each "
                    + "tile waits "
                    + "after its pixels",
                xLabel: "wait per tile (ms)", yLabel: "median wall time (ms)", logarithmicX: false, series: series)
        case .mergeBatch:
            return SVGChart.lines(
                title: "mandel sweep: what sharing the histogram costs, against the batch size",
                subtitle:
                    "\(job.size), \(job.iterations) iterations, \(job.splitLabel), \(WorkloadText.workers(job)); "
                    + "merging plus "
                    + "handing over, per run (median)",
                xLabel: "escape values per merge batch", yLabel: "merge + wait (ms per run)", logarithmicX: true,
                logarithmicY: true, series: series)
        }
    }

    /// One line per strategy: the most threads the process had at each point of a sweep.
    package static func sweepThreads(_ points: [SweepPoint], axis: SweepAxis, job: RenderJob) -> String {
        let names = points.first?.comparison.results.map(\.strategy) ?? []
        let series = names.map { name in
            SVGChart.Series(
                name: name,
                points: points.compactMap { point in
                    guard let result = point.comparison.results.first(where: { $0.strategy == name }),
                        let peak = result.behaviour.peakThreads
                    else { return nil }
                    return (point.value, Double(peak))
                })
        }
        let xLabel =
            switch axis {
            case .workers: "workers"
            case .tile: "tile side (pixels)"
            case .tileWait: "wait per tile (ms)"
            case .mergeBatch: "escape values per merge batch"
            }
        return SVGChart.lines(
            title: "mandel sweep: the process's peak threads",
            subtitle: "\(job.size), \(job.iterations) iterations, \(job.splitLabel); instruments not counted",
            xLabel: xLabel, yLabel: "peak threads", logarithmicX: axis == .tile || axis == .mergeBatch, series: series)
    }

    /// One line per strategy: the process's threads over its last counted run, from the sampler.
    package static func threads(_ comparison: StrategyComparison, job: RenderJob, workload: String) -> String {
        let series = comparison.results.map { result in
            SVGChart.Series(
                name: result.strategy,
                points: result.behaviour.threadsOverTime.enumerated().map { window, threads in
                    (Double(window) * 10, Double(threads))
                })
        }
        return SVGChart.lines(
            title: "mandel compare: the process's threads while each strategy renders",
            subtitle:
                "\(job.size), \(job.splitLabel), \(WorkloadText.workers(job))\(workload); last counted run, 10 ms "
                + "samples",
            xLabel: "time since the start (ms)", yLabel: "threads (instruments not counted)", logarithmicX: false,
            timeSeries: true, series: series)
    }

    /// One bar per strategy: when the preview reached the main queue, with a whisker to the full picture's completion.
    package static func firstPicture(_ comparison: StrategyComparison, job: RenderJob, every: Int) -> String {
        let bars = comparison.results.compactMap { result -> SVGChart.Bar? in
            guard let first = result.behaviour.firstPictureSeconds else { return nil }
            return SVGChart.Bar(
                label: result.strategy, value: first * 1000, low: first * 1000, high: result.wall.median * 1000,
                highlighted: false)
        }
        return SVGChart.bars(
            title: "mandel compare: time to the first picture",
            subtitle:
                "\(job.size), \(job.iterations) iterations, \(job.splitLabel), \(WorkloadText.workers(job)); preview "
                + "of every "
                + "\(every)th pixel, medians of the counted runs",
            valueLabel: "ms after the start; shorter is sooner", bars: bars,
            legend: [("bar: the preview", "#888"), ("whisker: the full picture", "#222")],
            figures: .init(value: "preview", low: nil, high: "full picture"))
    }

    /// One bar per strategy: how late the main queue's heartbeat ran (99th percentile, whiskers from the median to the
    /// maximum).
    package static func latency(_ comparison: StrategyComparison, job: RenderJob, workload: String) -> String {
        let bars = comparison.results.compactMap { result -> SVGChart.Bar? in
            guard let mainQueue = result.behaviour.mainQueue, let p99 = mainQueue.p99, let p50 = mainQueue.p50,
                let max = mainQueue.max
            else { return nil }
            return SVGChart.Bar(
                label: result.strategy, value: p99 * 1000, low: p50 * 1000, high: max * 1000, highlighted: false)
        }
        return SVGChart.bars(
            title: "mandel compare: how late the main queue ran",
            subtitle:
                "\(job.size), \(job.splitLabel), \(WorkloadText.workers(job))\(workload); heartbeat every tick, all "
                + "counted runs",
            valueLabel: "heartbeat lateness (ms); shorter is more responsive", bars: bars,
            legend: [("bar: 99th percentile", "#888"), ("whisker: median to max", "#222")],
            figures: .init(value: "p99", low: "median", high: "max"))
    }
}
