import Comparison
import Foundation
import Testing

/// The scaling model of `sweep --workers`: Gunther's law and Amdahl's, fitted by least squares.
@Suite("Scaling model")
struct ScalingModelTests {
    /// Times of a curve that follows the law with `sigma` and `kappa` exactly, from 1 s at one worker.
    static func curve(sigma: Double, kappa: Double, workers: [Int]) -> [(workers: Int, seconds: Double)] {
        workers.map { n in
            let speedup = Double(n) / (1 + sigma * Double(n - 1) + kappa * Double(n) * Double(n - 1))
            return (n, 1 / speedup)
        }
    }

    @Test(
        "a curve that follows the law gives back its sigma and kappa, and its peak",
        arguments: [(0.05, 0.001, 31), (0.0, 0.002, 22), (0.2, 0.0001, 89), (0.01, 0.02, 7)])
    func recoversKnownCoefficients(sigma: Double, kappa: Double, peak: Int) throws {
        let model = try #require(
            ScalingModel(times: Self.curve(sigma: sigma, kappa: kappa, workers: [1, 2, 4, 8, 16, 32, 64])))
        #expect(abs(model.contention - sigma) < 1e-9, "sigma \(model.contention)")
        #expect(abs(model.coherency - kappa) < 1e-12, "kappa \(model.coherency)")
        #expect(model.peakWorkers == peak)
        #expect(model.largestError < 1e-9)
        #expect(model.leastPossibleError < 1e-9)
        #expect(
            abs(model.speedup(at: 48) - Self.curve(sigma: sigma, kappa: kappa, workers: [48])[0].seconds.reciprocal)
                < 1e-9)
    }

    @Test("Amdahl's curve: kappa 0, no peak, the serial fraction is sigma")
    func amdahl() throws {
        let model = try #require(ScalingModel(times: Self.curve(sigma: 0.1, kappa: 0, workers: [1, 2, 3, 6, 12])))
        #expect(abs(model.serialFraction - 0.1) < 1e-12 && abs(model.contention - 0.1) < 1e-9)
        #expect(model.coherency < 1e-12 && model.peakWorkers == nil)
        #expect(abs(model.amdahlSpeedup(at: 11) - 11 / 2.0) < 1e-9)
    }

    @Test("one point beyond 1 worker fits Amdahl's law alone; no time at 1 worker, or no other, fits nothing")
    func fewPoints() throws {
        let two = try #require(ScalingModel(times: [(1, 2.0), (2, 1.25)]))
        // S = 2/1.25 = 1.6, so s = N/S − 1 = 0.25.
        #expect(abs(two.serialFraction - 0.25) < 1e-12 && two.coherency == 0 && two.largestError < 1e-12)
        #expect(two.leastPossibleError < 1e-9)
        #expect(ScalingModel(times: [(2, 1.0), (4, 0.6)]) == nil)
        #expect(ScalingModel(times: [(1, 1.0)]) == nil)
    }

    /// A sweep on a busy machine: more workers took longer (the CI run's thread: σ 2.5, κ 0.28).
    @Test("a curve that falls from the first worker on peaks at one worker, not at none")
    func fallingFromOne() throws {
        let model = try #require(
            ScalingModel(times: Self.curve(sigma: 2.5, kappa: 0.28, workers: [1, 2, 3])))
        #expect(model.contention > 1 && model.coherency > 0, "\(model)")
        #expect(model.peakWorkers == 1)
    }

    @Test("a curve better than linear (a superlinear point) keeps sigma and kappa at 0 or more")
    func neverNegative() throws {
        let model = try #require(ScalingModel(times: [(1, 1.0), (2, 0.45), (4, 0.24), (8, 0.2)]))
        #expect(model.contention >= 0 && model.coherency >= 0)
    }

    /// Points on the law's curve with σ = 0.2 and κ = −0.01 (y = N/S − 1 = 0.18, 0.48, 0.84 at 2, 4, 8):
    /// the two-parameter fit finds κ < 0, which has no meaning, so κ is 0 and σ is Amdahl's fit of
    /// the same points, Σay/Σa² = (0.18 + 3·0.48 + 7·0.84)/(1 + 9 + 49) = 7.5/59.
    @Test("a fit whose kappa comes out negative: kappa 0, and sigma Amdahl's fit of the same points")
    func negativeKappa() throws {
        let model = try #require(ScalingModel(times: [(1, 1.0), (2, 1.18 / 2), (4, 1.48 / 4), (8, 1.84 / 8)]))
        #expect(model.coherency == 0)
        #expect(abs(model.contention - 7.5 / 59) < 1e-12, "sigma \(model.contention)")
        #expect(abs(model.serialFraction - 7.5 / 59) < 1e-12, "Amdahl's \(model.serialFraction)")
    }

    /// No σ, κ ≥ 0 gives more than N at N workers: a point above that is missed by at least its excess.
    @Test("a superlinear point alone: the best any sigma and kappa can do is to miss it by 1/11, as the fit does")
    func superlinearFloor() throws {
        let model = try #require(ScalingModel(times: [(1, 1.0), (2, 1 / 2.2)]))
        #expect(abs(model.leastPossibleError - 1 / 11.0) < 1e-9, "\(model.leastPossibleError)")
        #expect(abs(model.largestError - 1 / 11.0) < 1e-9)
    }

    /// A curve flat from the processors on: 2× at 2, 4 and 8 workers (a 2-processor machine).
    @Test("a curve that bends at the processors: a floor under every fit, which no pair on a fine grid beats")
    func bendFloor() throws {
        let model = try #require(ScalingModel(times: [(1, 1.0), (2, 0.5), (4, 0.5), (8, 0.5)]))
        let least = model.leastPossibleError
        #expect(least > 0.05 && least <= model.largestError + 1e-12, "least \(least), fit \(model.largestError)")
        var bestOnGrid = Double.infinity
        for i in 0...200 {
            for j in 0...200 {
                let (sigma, kappa) = (Double(i) * 0.005, Double(j) * 0.001)
                let worst = [2.0, 4.0, 8.0].map { n in abs(n / (1 + sigma * (n - 1) + kappa * n * (n - 1)) / 2 - 1) }
                    .max()!
                bestOnGrid = min(bestOnGrid, worst)
            }
        }
        // The floor is the least: no pair does better, and a fine grid comes close to it.
        #expect(bestOnGrid >= least - 1e-9, "grid \(bestOnGrid) below the floor \(least)")
        #expect(bestOnGrid - least < 0.01, "grid \(bestOnGrid), floor \(least)")
    }

    /// The 16-core sweep of docs/results/many-core-16/B.json (3200x2400, 1,500 iterations, 1 to 32 workers):
    /// the fits the chapter publishes.
    @Test("the 16-core sweep: each curve peaks between 16 and 32 workers, gcd's fit within 5%, process's peak lowest")
    func sixteenCores() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("docs/results/many-core-16/B.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let points = try #require(object["points"] as? [[String: Any]])
        var fits: [String: ScalingModel] = [:]
        for name in ["thread", "operation", "gcd", "apply", "tasks", "pthread", "process"] {
            let times = points.compactMap { point -> (workers: Int, seconds: Double)? in
                let row = (point["results"] as? [[String: Any]])?.first { $0["strategy"] as? String == name }
                guard let workers = point["workers"] as? Int, let median = row?["median"] as? Double else { return nil }
                return (workers, median)
            }
            #expect(times.count == 7, "\(name)")
            fits[name] = ScalingModel(times: times)
        }
        #expect(try #require(fits["gcd"]).largestError < 0.05)
        for (name, model) in fits {
            #expect((16...32).contains(model.peakWorkers ?? 0) || name == "process", "\(name): \(model)")
            #expect(model.largestError < 0.25, "\(name): \(model.largestError)")
        }
        let process = try #require(fits["process"]?.peakWorkers)
        #expect(fits.filter { $0.key != "process" }.allSatisfy { ($0.value.peakWorkers ?? 0) > process })
        // The chapter's table of these fits (docs/many-cores.md, written by docs/measure/measure from B.json)
        // gives this model's numbers, digit for digit at the precision it prints.
        let table = try String(
            contentsOf: root.appendingPathComponent("docs/results/many-cores/workers-fit-16.md"), encoding: .utf8)
        var checked = 0
        for line in table.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let model = try #require(fits[cells[0].trimmingCharacters(in: ["`"])], "\(line)")
            #expect(cells[1] == String(format: "%.4f", model.contention), "\(line)")
            #expect(cells[2] == String(format: "%.5f", model.coherency), "\(line)")
            #expect(cells[3] == String(format: "%.4f", model.serialFraction), "\(line)")
            #expect(cells[4] == model.peakWorkers.map(String.init) ?? "none", "\(line)")
            #expect(cells[5] == String(format: "%.1f%%", model.largestError * 100), "\(line)")
            #expect(cells[6] == String(format: "%.1f%%", model.leastPossibleError * 100), "\(line)")
            #expect(model.leastPossibleError <= model.largestError + 1e-12, "\(line)")
            checked += 1
        }
        #expect(checked == 7)
    }
}

extension Double {
    fileprivate var reciprocal: Double { 1 / self }
}
