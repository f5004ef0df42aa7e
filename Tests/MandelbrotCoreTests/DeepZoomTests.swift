import Deadline
import DeepShim
import Dispatch
import Foundation
import MandelbrotCore
import Testing

/// The deep-zoom benchmark locations of the Kalles Fraktaler suite, at full precision
/// (Benchmarks/deep-locations.tsv: name, re, im, KF zoom, mandel zoom, iterations, source).
enum DeepLocations {
    /// "1e14": mandel zoom 4/3 · 10¹⁴, 4,036 iterations.
    static let location1e14 = (
        real: "-1.759817130804847813610825010561798238243999999999999999999800",
        imaginary: "-0.012593310799749865383746631843264858450340000000000000000000",
        zoom: "1.333333333333333333333333333333333333333e14", iterations: 4036
    )

    /// The location `name` of the file: its view and iteration limit.
    static func named(_ name: String) throws -> (view: DeepView, iterations: Int) {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Benchmarks/deep-locations.tsv")
        let text = try String(contentsOf: file, encoding: .utf8)
        let fields = try #require(
            text.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }.first { $0.first == name },
            "no location \(name) in \(file.path)")
        let view = try #require(DeepView(centerReal: fields[1], centerImaginary: fields[2], zoom: fields[4]))
        return (view, try #require(Int(fields[5])))
    }
}

/// The oracle: every pixel iterated on its own in MPFR, no perturbation, no approximation.
enum DeepOracle {
    /// Every pixel's escape count, row by row, computed on all processors.
    static func counts(_ view: DeepView, size: ImageSize, limit: Int) -> [UInt32] {
        let bits = view.precisionBits(for: size) + 64
        let pixels = size.pixelCount
        let counts = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: pixels)
        defer { counts.deallocate() }
        nonisolated(unsafe) let output = counts
        DispatchQueue.concurrentPerform(iterations: pixels) { index in
            output[index] = UInt32(
                deep_oracle_pixel(
                    view.centerReal, view.centerImaginary, view.zoom, size.width, size.height, index % size.width,
                    index / size.width, bits, UInt64(limit)))
        }
        return Array(counts)
    }

    /// The escape counts of the pixels `pixels` (x, y) only, computed on all processors.
    static func counts(_ view: DeepView, size: ImageSize, pixels: [(x: Int, y: Int)], limit: Int) -> [UInt32] {
        let bits = view.precisionBits(for: size) + 64
        let counts = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: pixels.count)
        defer { counts.deallocate() }
        nonisolated(unsafe) let output = counts
        DispatchQueue.concurrentPerform(iterations: pixels.count) { index in
            output[index] = UInt32(
                deep_oracle_pixel(
                    view.centerReal, view.centerImaginary, view.zoom, size.width, size.height, pixels[index].x,
                    pixels[index].y, bits, UInt64(limit)))
        }
        return Array(counts)
    }
}

/// What a watching thread saw of a render's progress.
private final class ProgressWatch: @unchecked Sendable {
    // @unchecked: every field behind the lock.
    private let lock = NSLock()
    private var seen: SerialProgress.Snapshot?
    private var done = false

    var first: SerialProgress.Snapshot? { lock.withLock { seen } }
    var isDone: Bool { lock.withLock { done } }
    func record(_ snapshot: SerialProgress.Snapshot) { lock.withLock { seen = snapshot } }
    func finish() { lock.withLock { done = true } }
}

@Suite("Deep zoom: perturbation against a per-pixel MPFR oracle")
struct DeepZoomTests {
    /// The counts of a render of `view` by the serial strategy.
    static func render(
        _ view: DeepView, size: ImageSize, iterations: Int, workers: Int = 2, color: ColorScheme = .smooth
    ) async throws -> [UInt32] {
        var job = RenderJob(
            size: size, region: .view(view.approximateViewport), iterations: iterations, colorScheme: color,
            workers: workers)
        job.deep = view
        let render = try PictureRender(job: job, keepsCounts: true)
        let report = try await withDeadline(waitingFor: "a deep render of \(size.width)x\(size.height)") {
            try await render.run(SerialStrategy())
        }
        #expect(report.deepPhases != nil)
        let counts = try #require(render.counts)
        return counts.withCounts { Array($0) }
    }

    /// The oracle's counts of `pixels`, within a deadline.
    static func oracle(
        _ view: DeepView, size: ImageSize, pixels: [(x: Int, y: Int)], limit: Int
    ) async throws -> [UInt32] {
        try await withDeadline(waitingFor: "the MPFR oracle on \(pixels.count) pixels") {
            DeepOracle.counts(view, size: size, pixels: pixels, limit: limit)
        }
    }

    static func agreement(_ counts: [UInt32], _ oracle: [UInt32]) -> Double {
        Double(zip(counts, oracle).filter { $0 == $1 }.count) / Double(oracle.count)
    }

    /// The rule that sends a deep pixel to the MPFR count, as docs/deep-zoom.md states it. No view
    /// of the tests (nor of the 28 measured) has a pixel that the escape's margin alone sends there:
    /// the pictures cannot tell a margin of one bound from two, or none, so the rule is read here.
    @Test(
        "a deep pixel is untrusted when it escapes within twice its error bound of the circle, or its bound is past 2^-7"
    )
    func escapeUntrusted() {
        for bound in [0x1p-40, 0x1p-30, 0x1p-12, 0x1p-8, 0x1p-7] {
            for (margin, untrusted) in [
                (0.0, true), (0.5, true), (1.0, true), (1.5, true), (1.9, true), (2.1, false),
                (3.0, false), (1e6, false),
            ] {
                let modulus = 2 + margin * bound
                #expect(
                    deep_escape_untrusted(modulus * modulus, bound) == (untrusted ? 1 : 0),
                    "|Z + z| = 2 + \(margin) bounds, bound \(bound)")
            }
        }
        // Past 2^-7, an escape far from the circle is untrusted too: the orbit may have passed it before.
        for modulus in [2.5, 10.0, 1e10] {
            #expect(deep_escape_untrusted(modulus * modulus, 0x1p-7.nextUp) == 1)
            #expect(deep_escape_untrusted(modulus * modulus, 0x1p-7) == 0)
        }
    }

    @Test("\"1e14\" at 64×64: at least 99.9% of the counts equal the oracle's, with and without BLA")
    func location1e14() async throws {
        let location = DeepLocations.location1e14
        let size = ImageSize(width: 64, height: 64)
        let view = try #require(
            DeepView(centerReal: location.real, centerImaginary: location.imaginary, zoom: location.zoom))
        let oracle = DeepOracle.counts(view, size: size, limit: location.iterations)
        // Not a flat picture: the test would pass for a constant otherwise.
        #expect(Set(oracle).count > 50)
        for usesTable in [true, false] {
            var variant = view
            variant.usesTable = usesTable
            let counts = try await Self.render(variant, size: size, iterations: location.iterations)
            let agreement = Self.agreement(counts, oracle)
            #expect(agreement >= 0.999, "BLA \(usesTable): \(agreement)")
        }
    }

    @Test("past 1e300 (the extended exponent): zoom 1e310 near the Misiurewicz point i, every count the oracle's")
    func past1e300() async throws {
        let size = ImageSize(width: 24, height: 20)
        let view = try #require(DeepView(centerReal: "0.0000000001e-300", centerImaginary: "1", zoom: "1e310"))
        let oracle = DeepOracle.counts(view, size: size, limit: 2000)
        #expect(Set(oracle).count > 5)
        let counts = try await Self.render(view, size: size, iterations: 2000)
        #expect(Self.agreement(counts, oracle) >= 0.999)
    }

    /// Pixels stepped four at a time (the lanes of the Double loop) count as pixels stepped one by
    /// one: at "5e227" pixels rebase and leave the lanes while the others step on.
    @Test("\"5e227\" and \"1e14\" at 8×8: pixels stepped together in lanes count as pixels stepped apart")
    func lanesCountAsApart() throws {
        let side = 8
        let offsets = (0..<side).map { (Double($0) + 0.5 - Double(side) / 2) * 3 / Double(side) }
        for name in ["5e227", "1e14"] {
            let (view, iterations) = try DeepLocations.named(name)
            let bits = view.precisionBits(for: ImageSize(width: side, height: side))
            let orbit = UnsafeMutablePointer<Double>.allocate(capacity: 2 * (iterations + 1))
            defer { orbit.deallocate() }
            var context = deep_context()
            context.orbit = orbit
            defer { deep_free_context(&context) }
            let length = deep_reference_orbit(
                view.centerReal, view.centerImaginary, bits, UInt64(iterations), &context, nil, nil)
            #expect(length > 0 && length < UInt64(iterations), "\(name): the reference escapes")
            context.center_re = orbit[2]
            context.center_im = orbit[3]
            context.inverse_zoom = deep_inverse_zoom(view.zoom, bits)
            var exponent: Int32 = 0
            let mantissa = frexp(hypot(offsets[0], offsets[0]) * context.inverse_zoom.m, &exponent)
            let largest = deep_real(m: mantissa, e: context.inverse_zoom.e + Int64(exponent))
            #expect(deep_build_table(&context, largest, 0x1p-53, nil) == 0)
            #expect(deep_prepare_lanes(&context) == 0)
            func picture(usesTable: Int32, _ countRow: DeepCountRow) -> [UInt32] {
                var counts = [UInt32](repeating: 0, count: side * side)
                counts.withUnsafeMutableBufferPointer { counts in
                    for y in 0..<side {
                        _ = countRow(
                            &context, offsets, -offsets[y], Int32(side), UInt64(iterations), usesTable,
                            counts.baseAddress! + y * side, nil, nil)
                    }
                }
                return counts
            }
            var apart: [Int32: [UInt32]] = [:]
            for usesTable: Int32 in [1, 0] {
                apart[usesTable] = picture(usesTable: usesTable, deep_count_row_apart)
                #expect(Set(apart[usesTable]!).count > 20, "\(name): not a flat picture")
                #expect(picture(usesTable: usesTable, deep_count_row) == apart[usesTable], "\(name), BLA \(usesTable)")
            }
            // Without the lanes' steps (their memory could not be had) a pixel reads Z_m and the radius
            // from the orbit and the table's radii instead: the same counts.
            free(context.lane_steps)
            context.lane_steps = nil
            for usesTable: Int32 in [1, 0] {
                #expect(
                    picture(usesTable: usesTable, deep_count_row) == apart[usesTable],
                    "\(name), BLA \(usesTable), no lane steps")
            }
        }
    }

    /// deep_count_row's signature, for the tests that count one picture several ways.
    typealias DeepCountRow = (
        UnsafePointer<deep_context>?, UnsafePointer<Double>?, Double, Int32, UInt64, Int32,
        UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<Float>?, UnsafeMutablePointer<UInt64>?
    ) -> UInt64

    /// Eight pixels of an 8×8 picture: the corners, two on the diagonal, two off it.
    static let sampledPixels = [(0, 0), (7, 0), (0, 7), (7, 7), (3, 3), (4, 5), (5, 1), (1, 6)].map { (x: $0, y: $1) }

    /// Past 1e308, the reference escaping at 105,760 of 120,000 steps.
    @Test("\"4e533\": eight pixels of 8×8 equal the oracle's, with and without BLA")
    func location4e533() async throws {
        let (view, iterations) = try DeepLocations.named("4e533")
        let size = ImageSize(width: 8, height: 8)
        let oracle = try await Self.oracle(view, size: size, pixels: Self.sampledPixels, limit: iterations)
        // Not one flat count (every pixel at the reference's escape step was the bug this guards).
        #expect(Set(oracle).count >= 6)
        for usesTable in [true, false] {
            var variant = view
            variant.usesTable = usesTable
            let counts = try await Self.render(variant, size: size, iterations: iterations)
            let sampled = Self.sampledPixels.map { counts[$0.y * size.width + $0.x] }
            #expect(sampled == oracle, "BLA \(usesTable)")
        }
    }

    /// The reference passes within 2^-1552 of 0 (below any Double) and escapes before the limit.
    @Test("\"1e1086\": two pixels of 8×8 equal the oracle's")
    func location1e1086() async throws {
        let (view, iterations) = try DeepLocations.named("1e1086")
        let size = ImageSize(width: 8, height: 8)
        // Pixels where a Z rounded to a Double (0 there) gives other counts; the oracle takes about 2.5 s a pixel.
        let pixels = [(1, 0), (4, 1)].map { (x: $0, y: $1) }
        let oracle = try await Self.oracle(view, size: size, pixels: pixels, limit: iterations)
        let counts = try await Self.render(view, size: size, iterations: iterations)
        #expect(pixels.map { counts[$0.y * size.width + $0.x] } == oracle)
        #expect(Set(counts).count > 10)
    }

    /// Three pixels where the arithmetic shows: (19, 29), which a quadratic table 2^13 times looser (in
    /// its dropped terms' bound) counts as 178,803; (62, 31) and (34, 41), which come out 173,422 and
    /// 176,057 where a multiply and an add are fused (the FP_CONTRACT of DeepShim's extended.h). The
    /// quadratic table does much of this view's work: without it the pixels take 4 times the processor time.
    @Test("\"1e50\": three pixels of 64×64 equal the oracle's counts, which a looser table or fused arithmetic miss")
    func quadraticTolerance() async throws {
        let (view, iterations) = try DeepLocations.named("1e50")
        let size = ImageSize(width: 64, height: 64)
        let pixels = [(19, 29), (62, 31), (34, 41)].map { (x: $0, y: $1) }
        let oracle = try await Self.oracle(view, size: size, pixels: pixels, limit: iterations)
        #expect(oracle == [178_804, 173_421, 176_054])
        let counts = try await Self.render(view, size: size, iterations: iterations)
        #expect(pixels.map { counts[$0.y * size.width + $0.x] } == oracle)
        #expect(Set(counts).count > 1000, "not a flat picture")
    }

    /// A pixel where the linear table's tolerance shows: (20, 16) of "5e227" at 32×32 escapes after
    /// 1,137,893 iterations, and after 1,137,886 with a tolerance of 2⁻⁵⁰ instead of 2⁻⁵³ (13 of the
    /// 1,024 counts move then; this one is where they leave the oracle's). With the orbit computed to
    /// its escape: stopped at its period (567,135 steps), this pixel's Double steps, rebased otherwise,
    /// come out one short, 1,137,892 (docs/deep-zoom.md, "The orbit stops at its period").
    @Test("\"5e227\": pixel (20, 16) of 32×32 equals the oracle's count, which a table 8 times looser misses")
    func linearTolerance() async throws {
        var (view, iterations) = try DeepLocations.named("5e227")
        view.detectsPeriod = false
        let size = ImageSize(width: 32, height: 32)
        let pixels = [(x: 20, y: 16)]
        let oracle = try await Self.oracle(view, size: size, pixels: pixels, limit: iterations)
        #expect(oracle == [1_137_893])
        let counts = try await Self.render(view, size: size, iterations: iterations)
        #expect(pixels.map { counts[$0.y * size.width + $0.x] } == oracle)
    }

    /// The table built beside the orbit, as its steps come, is the table built after it, byte for
    /// byte: so the pixels cannot tell. "1e1086" to 200,000 steps passes its first step below any
    /// Double (179,301), which the builder reads while the orbit may grow those steps' arrays.
    @Test("the table built beside the orbit equals the table built after it, every entry's every byte")
    func tableBesideOrbit() throws {
        for (name, steps) in [("1e1086", 200_000), ("4e533", 120_000), ("5e227", 20_000)] {
            let (view, _) = try DeepLocations.named(name)
            let bits = view.precisionBits(for: ImageSize(width: 8, height: 8))
            let inverseZoom = deep_inverse_zoom(view.zoom, bits)
            let largest = deep_real(m: 0.75, e: inverseZoom.e + 2)
            func reference(beside: Bool) -> (deep_context, UnsafeMutablePointer<Double>) {
                let orbit = UnsafeMutablePointer<Double>.allocate(capacity: 2 * (steps + 1))
                var context = deep_context()
                context.orbit = orbit
                context.inverse_zoom = inverseZoom
                context.extended = inverseZoom.e < -960 ? 1 : 0
                if beside {
                    var orbitSeconds = 0.0
                    _ = deep_reference_orbit_and_table(
                        view.centerReal, view.centerImaginary, bits, UInt64(steps), &context, nil, nil, largest,
                        0x1p-53, &orbitSeconds)
                } else {
                    _ = deep_reference_orbit(
                        view.centerReal, view.centerImaginary, bits, UInt64(steps), &context, nil, nil)
                    _ = deep_build_table(&context, largest, 0x1p-53, nil)
                }
                return (context, orbit)
            }
            var (after, afterOrbit) = reference(beside: false)
            var (beside, besideOrbit) = reference(beside: true)
            defer {
                deep_free_context(&after)
                deep_free_context(&beside)
                afterOrbit.deallocate()
                besideOrbit.deallocate()
            }
            #expect(beside.length == after.length && beside.tiny_count == after.tiny_count, "\(name)")
            #expect(after.level_count > 10 && beside.level_count == after.level_count, "\(name)")
            #expect(memcmp(afterOrbit, besideOrbit, 16 * (Int(after.length) + 1)) == 0, "\(name): the orbits")
            let levels = Int(after.level_count)
            withUnsafePointer(to: after.level_sizes) { afterSizes in
                withUnsafePointer(to: beside.level_sizes) { besideSizes in
                    #expect(memcmp(afterSizes, besideSizes, 8 * (levels + 1)) == 0, "\(name): the levels' sizes")
                }
            }
            // The levels' pointers and sizes, read out of the C arrays (imported as tuples).
            func pointers<Tuple>(_ tuple: Tuple) -> [UnsafeRawPointer?] {
                withUnsafeBytes(of: tuple) { bytes in
                    (0..<64).map { bytes.load(fromByteOffset: $0 * 8, as: UnsafeRawPointer?.self) }
                }
            }
            let sizes = withUnsafeBytes(of: after.level_sizes) { bytes in
                (0...levels).map { Int(bytes.load(fromByteOffset: $0 * 8, as: UInt64.self)) }
            }
            for (a, b, stride) in [
                (pointers(after.levels), pointers(beside.levels), MemoryLayout<deep_bla>.stride),
                (pointers(after.levels_double), pointers(beside.levels_double), MemoryLayout<deep_bla_double>.stride),
            ] {
                for level in 1...levels {
                    #expect(memcmp(a[level]!, b[level]!, stride * sizes[level]) == 0, "\(name): level \(level)")
                }
            }
            #expect(
                memcmp(after.entry_radii, beside.entry_radii, 8 * (Int(after.length) / 2 + 1)) == 0,
                "\(name): the radii")
            // The quadratic table's levels, from the lowest kept.
            let quadLevels = Int(after.quad_level_count)
            #expect(quadLevels > 10 && beside.quad_level_count == after.quad_level_count, "\(name)")
            let quadSizes = withUnsafeBytes(of: after.quad_sizes) { Array($0.bindMemory(to: UInt64.self)) }
            #expect(withUnsafeBytes(of: beside.quad_sizes) { Array($0.bindMemory(to: UInt64.self)) } == quadSizes)
            let lowest = Int(DEEP_QUAD_LOWEST_LEVEL)
            #expect(quadSizes[lowest] == ((after.length - 1) / 2) >> (lowest - 1), "\(name)")
            let (quadAfter, quadBeside) = (pointers(after.quad_levels), pointers(beside.quad_levels))
            for level in lowest...quadLevels {
                let bytes = MemoryLayout<deep_quad_double>.stride * Int(quadSizes[level])
                #expect(memcmp(quadAfter[level]!, quadBeside[level]!, bytes) == 0, "\(name): quadratic level \(level)")
            }
        }
    }

    /// What the builder may build while the orbit runs reads no step past the orbit's frontier:
    /// with every step after it poisoned (NaN), the entries built equal the whole table's, and
    /// level 1 has (frontier − 1) / 2 of them.
    @Test("the table beside the orbit reads no step past the orbit's frontier")
    func tablePrefix() throws {
        let (view, _) = try DeepLocations.named("5e227")
        let steps = 20_000
        let bits = view.precisionBits(for: ImageSize(width: 8, height: 8))
        let inverseZoom = deep_inverse_zoom(view.zoom, bits)
        let largest = deep_real(m: 0.75, e: inverseZoom.e + 2)
        let orbit = UnsafeMutablePointer<Double>.allocate(capacity: 2 * (steps + 1))
        defer { orbit.deallocate() }
        var whole = deep_context()
        whole.orbit = orbit
        whole.inverse_zoom = inverseZoom
        defer { deep_free_context(&whole) }
        #expect(
            deep_reference_orbit(view.centerReal, view.centerImaginary, bits, UInt64(steps), &whole, nil, nil)
                == 20_000)
        #expect(deep_build_table(&whole, largest, 0x1p-53, nil) == 0)
        for frontier in [2, 3, 1024, 1025, 4097, 12_345] {
            let poisoned = UnsafeMutablePointer<Double>.allocate(capacity: 2 * (steps + 1))
            defer { poisoned.deallocate() }
            poisoned.initialize(repeating: .nan, count: 2 * (steps + 1))
            poisoned.update(from: orbit, count: 2 * (frontier + 1))
            // The whole table's orbit and tiny steps, with no table and the steps past the frontier poisoned.
            var prefix = deep_context()
            prefix.orbit = poisoned
            prefix.inverse_zoom = inverseZoom
            prefix.length = whole.length
            prefix.tiny_count = whole.tiny_count
            prefix.tiny_index = whole.tiny_index
            prefix.tiny_value = whole.tiny_value
            var sizes = [UInt64](repeating: 0, count: 64)
            #expect(deep_build_table_prefix(&prefix, largest, 0x1p-53, UInt64(frontier), &sizes) == 0)
            defer { deep_free_table(&prefix) }
            #expect(sizes[1] == UInt64((frontier - 1) / 2), "frontier \(frontier)")
            // Level k's entries, read out of the C array of pointers (imported as a tuple).
            func entries(_ context: deep_context, _ level: Int) -> UnsafeRawPointer? {
                withUnsafeBytes(of: context.levels_double) {
                    $0.load(fromByteOffset: level * 8, as: UnsafeRawPointer?.self)
                }
            }
            for level in 1..<64 where sizes[level] > 0 {
                let bytes = MemoryLayout<deep_bla_double>.stride * Int(sizes[level])
                #expect(
                    memcmp(entries(whole, level)!, entries(prefix, level)!, bytes) == 0,
                    "frontier \(frontier), level \(level)")
            }
            // The quadratic table's, from its lowest level: 2^(k − 1) of level 1's pairs an entry.
            func quadratic(_ context: deep_context, _ level: Int) -> UnsafeRawPointer? {
                withUnsafeBytes(of: context.quad_levels) {
                    $0.load(fromByteOffset: level * 8, as: UnsafeRawPointer?.self)
                }
            }
            let quadSizes = withUnsafeBytes(of: prefix.quad_sizes) { Array($0.bindMemory(to: UInt64.self)) }
            for level in Int(DEEP_QUAD_LOWEST_LEVEL)..<64 {
                #expect(quadSizes[level] == UInt64((frontier - 1) / 2) >> (level - 1), "frontier \(frontier)")
                guard quadSizes[level] > 0 else { continue }
                let bytes = MemoryLayout<deep_quad_double>.stride * Int(quadSizes[level])
                #expect(
                    memcmp(quadratic(whole, level)!, quadratic(prefix, level)!, bytes) == 0,
                    "frontier \(frontier), quadratic level \(level)")
            }
        }
    }

    /// An 8×8 render of `view` by one worker.
    /// What the memory check counts for `job`'s deep view: its figure less the same picture's without one.
    static func deepBytes(of job: RenderJob, helperProcesses: Int) -> Int {
        var flat = job
        flat.deep = nil
        let plan = job.plan()
        return PictureRender.bytesNeeded(for: job, plan: plan, keepsCounts: false, helperProcesses: helperProcesses)
            - PictureRender.bytesNeeded(for: flat, plan: plan, keepsCounts: false)
    }

    static func oneWorkerJob(_ view: DeepView, iterations: Int) -> RenderJob {
        var job = RenderJob(
            size: ImageSize(width: 8, height: 8), region: .view(view.approximateViewport), iterations: iterations,
            workers: 1)
        job.deep = view
        return job
    }

    /// A view whose orbit never escapes (inside the main cardioid): its orbit, table and lanes as
    /// long as the limit, what the memory check counts on.
    @Test("the memory check counts a deep view's orbit, table and lanes: at least what they take, at most twice")
    func memoryEstimate() throws {
        let steps = 200_000
        let view = try #require(DeepView(centerReal: "-0.1", centerImaginary: "0.1", zoom: "1e20"))
        let job = Self.oneWorkerJob(view, iterations: steps)
        func deepBytes(helperProcesses: Int) -> Int { Self.deepBytes(of: job, helperProcesses: helperProcesses) }
        // What DeepShim's C takes for it: the orbit, every level's entries, the radii and the lanes' steps.
        let bits = view.precisionBits(for: job.size)
        var orbit = [Double](repeating: 0, count: 2 * (steps + 1))
        let (length, entries) = orbit.withUnsafeMutableBufferPointer { orbit in
            var context = deep_context()
            context.orbit = orbit.baseAddress
            let length = deep_reference_orbit(
                view.centerReal, view.centerImaginary, bits, UInt64(steps), &context, nil, nil)
            context.inverse_zoom = deep_inverse_zoom(view.zoom, bits)
            let built = deep_build_table(&context, deep_real(m: 0.5, e: context.inverse_zoom.e + 2), 0x1p-53, nil)
            let prepared = deep_prepare_lanes(&context)
            let sizes = withUnsafeBytes(of: context.level_sizes) { Array($0.bindMemory(to: UInt64.self)) }
            let quadSizes = withUnsafeBytes(of: context.quad_sizes) { Array($0.bindMemory(to: UInt64.self)) }
            let levels = Int(context.level_count)
            deep_free_context(&context)
            return built == 0 && prepared == 0 && levels > 0
                ? (Int(length), (Int(sizes[1...levels].reduce(0, +)), Int(quadSizes.reduce(0, +)))) : (0, (0, 0))
        }
        #expect(length == steps, "the reference does not escape, and its table and lanes are built")
        #expect(entries.0 >= steps - 64, "\(entries.0) entries over \(steps) steps")
        #expect(entries.1 >= steps / 8 - 64, "\(entries.1) quadratic entries over \(steps) steps")
        let orbitBytes = 16 * (length + 1)
        let taken =
            orbitBytes + entries.0 * (MemoryLayout<deep_bla>.stride + MemoryLayout<deep_bla_double>.stride)
            + entries.1 * MemoryLayout<deep_quad_double>.stride + 8 * (length / 2 + 1) + 32 * (length + 1)
        let inProcess = deepBytes(helperProcesses: 0)
        #expect(inProcess >= taken && inProcess <= 2 * taken, "\(inProcess) bytes counted, \(taken) taken")
        // Two helpers: each reads the orbit in its recipe and holds what a render does; the parent
        // holds the orbit and the recipe.
        let helpers = deepBytes(helperProcesses: 2)
        let helpersTake = 2 * (orbitBytes + taken) + 2 * orbitBytes
        #expect(
            helpers >= helpersTake && helpers <= 2 * helpersTake, "\(helpers) bytes counted, \(helpersTake) taken")
        // Beyond two renderers' memory, the orbit four times more: each helper's recipe, the parent's orbit and
        // recipe. (The table's estimate counts the capacity it grows to, which hid a missing copy from the bounds
        // above.)
        #expect(helpers - 2 * inProcess == 4 * orbitBytes, "\(helpers - 2 * inProcess) bytes beyond two renderers")
    }

    /// Without the table (`--bla off`) a deep render holds what DeepShim allocates and nothing it grows:
    /// the orbit (two doubles a step, `orbit`) and the lanes' steps (four a step, `lane_steps`, which
    /// `deep_prepare_lanes` allocates with or without a table), so the check's figure is exact there.
    /// The bounds of ``memoryEstimate()`` (at most twice what is taken) let the lanes' 32 bytes a step
    /// go uncounted, hidden by the table's grown capacity (round eight's renderer-lanes-uncounted).
    @Test("without the table, the memory check counts exactly the orbit and the lanes' steps, in each helper too")
    func memoryWithoutTable() throws {
        let steps = 200_000
        let view = try #require(
            DeepView(centerReal: "-0.1", centerImaginary: "0.1", zoom: "1e20", usesTable: false))
        let job = Self.oneWorkerJob(view, iterations: steps)
        let orbit = 16 * (steps + 1)
        let lanes = 32 * (steps + 1)
        #expect(Self.deepBytes(of: job, helperProcesses: 0) == orbit + lanes)
        // Two helpers: each its recipe's orbit, its own orbit and its lanes; the parent the orbit and the recipe.
        #expect(Self.deepBytes(of: job, helperProcesses: 2) == 2 * (orbit + orbit + lanes) + 2 * orbit)
    }

    /// What is left of the tables when the orbit ends can take seconds where the orbit's steps are
    /// cheap (at 134 bits a quadratic entry costs about three of them), and a helper process builds
    /// them whole: the builder looks at the cancel word, so a cancel does not wait for them. Built
    /// after the orbit here with the word set, and unset: nothing, then every level.
    @Test("the tables' builder stops at a cancel (-2, no table), and builds them all without one")
    func tablesCancelled() throws {
        let steps = 200_000
        let view = try #require(DeepView(centerReal: "-0.1", centerImaginary: "0.1", zoom: "1e20"))
        let bits = view.precisionBits(for: ImageSize(width: 8, height: 8))
        let orbit = UnsafeMutablePointer<Double>.allocate(capacity: 2 * (steps + 1))
        let cancel = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        defer {
            orbit.deallocate()
            cancel.deallocate()
        }
        var context = deep_context()
        context.orbit = orbit
        defer { deep_free_context(&context) }
        #expect(
            deep_reference_orbit(view.centerReal, view.centerImaginary, bits, UInt64(steps), &context, nil, nil)
                == UInt64(steps))
        context.inverse_zoom = deep_inverse_zoom(view.zoom, bits)
        let largest = deep_real(m: 0.75, e: context.inverse_zoom.e + 2)
        cancel.initialize(to: 1)
        #expect(deep_build_table(&context, largest, 0x1p-53, cancel) == -2)
        #expect(context.level_count == 0 && context.quad_level_count == 0 && context.entry_radii == nil)
        cancel.pointee = 0
        #expect(deep_build_table(&context, largest, 0x1p-53, cancel) == 0)
        #expect(context.level_count > 10 && context.quad_level_count > 10 && context.entry_radii != nil)
    }

    /// The meter's source: the orbit's steps while it runs (no tile finishes then), then the pixels' start.
    @Test("a deep render tells its progress: the orbit's steps while it runs, then when the pixels began")
    func serialProgress() async throws {
        // "1e1086": an orbit of 538,502 steps at 3,679 bits, over a second; cancelled once it has shown steps.
        let (deep, iterations) = try DeepLocations.named("1e1086")
        let render = try PictureRender(job: Self.oneWorkerJob(deep, iterations: iterations))
        let progress = try #require(render.serialProgress)
        // Watched from a thread of its own (not the tests' pool, which a loaded machine can keep
        // busy for a minute): the first snapshot with steps, then a cancel.
        let watch = ProgressWatch()
        DispatchQueue.global().async {
            while !watch.isDone {
                let snapshot = progress.snapshot()
                if snapshot.orbitSteps > 0 {
                    watch.record(snapshot)
                    render.cancellation.cancel()
                    return
                }
                usleep(1000)
            }
        }
        await #expect(throws: RenderCancelled.self) {
            try await withDeadline(waitingFor: "the orbit, cancelled once it shows steps") {
                _ = try await render.run(SerialStrategy())
            }
        }
        watch.finish()
        let seen = try #require(watch.first, "no snapshot showed the orbit's steps")
        #expect(seen.phase == .orbit && seen.pixelSeconds == nil)
        #expect(seen.orbitSteps < 538_502 && seen.stepLimit == iterations)

        // "4e533" whole: its reference escapes at step 105,760 (some 0.1 s), before the limit of 120,000
        // (computed to its escape: it would stop at its period, 52,859, first).
        var (escaping, limit) = try DeepLocations.named("4e533")
        escaping.detectsPeriod = false
        var shallow = Self.oneWorkerJob(escaping, iterations: limit)
        let whole = try PictureRender(job: shallow)
        let clock = ContinuousClock()
        let start = clock.now
        let report = try await withDeadline(waitingFor: "an 8x8 render of \"4e533\"") {
            try await whole.run(SerialStrategy())
        }
        let done = try #require(whole.serialProgress).snapshot()
        let elapsed = start.duration(to: clock.now) / .seconds(1)
        let phases = try #require(report.deepPhases)
        #expect(done.phase == .pixels && done.orbitSteps == phases.orbitLength && done.orbitSteps == 105_760)
        // The pixels began after the orbit and the table, not with the render (nor with the orbit).
        let pixelSeconds = try #require(done.pixelSeconds)
        #expect(pixelSeconds > 0 && pixelSeconds <= elapsed - phases.orbitSeconds - phases.tableSeconds)

        shallow.deep = nil
        #expect(try PictureRender(job: shallow).serialProgress == nil)
    }

    @Test("a deep view's text is read exactly: centres 1e-999 apart (both 0 as Doubles) give different pictures")
    func exactCentre() async throws {
        let size = ImageSize(width: 16, height: 16)
        let zoom = "1" + String(repeating: "0", count: 1000)
        let first = try #require(DeepView(centerReal: "1e-999", centerImaginary: "1", zoom: zoom))
        let second = try #require(DeepView(centerReal: "0.000000002e-990", centerImaginary: "1", zoom: zoom))
        let a = try await Self.render(first, size: size, iterations: 3000)
        let b = try await Self.render(second, size: size, iterations: 3000)
        #expect(Set(a).count > 1)
        #expect(a != b)
    }

    @Test("texts that are not decimal numbers, and zooms that are not positive, make no deep view")
    func refusals() {
        #expect(DeepView(centerReal: "1,5", centerImaginary: "0", zoom: "1e20") == nil)
        #expect(DeepView(centerReal: "nan", centerImaginary: "0", zoom: "1e20") == nil)
        #expect(DeepView(centerReal: "0", centerImaginary: "0", zoom: "0") == nil)
        #expect(DeepView(centerReal: "0", centerImaginary: "0", zoom: "-1e20") == nil)
        #expect(DeepView(centerReal: "0", centerImaginary: "0", zoom: "1e20") != nil)
    }
}
