import MandelbrotCore

/// Hostile frame streams for a helper, from a seed: random bytes, and valid conversations (a
/// recipe and tiles of it, sometimes a second recipe) with one thing changed: a header's length or
/// kind, one field of the recipe or of a tile request set to a value at or past its limit, a
/// cut, bytes flipped, frames dropped, repeated or swapped. Input `i` of seed `s` depends on
/// nothing else, so any one input can be made again.
struct HelperFrameFuzzer {
    typealias Recipe = HelperWire.Recipe

    /// One input: its bytes and what was done to make it.
    struct Input {
        let bytes: [UInt8]
        let what: String
    }

    let seed: UInt64

    func input(_ index: Int) -> Input {
        var maker = Maker(random: SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index)))
        return maker.make()
    }

    /// Values at and past the ends of a 32-bit field.
    static let edges32: [UInt32] = [
        0, 1, 2, 7, 8, 15, 16, 17, 255, 256, 4096, 65535, 65536, 100_000_000, 100_000_001, 1 << 20, (1 << 20) + 1,
        1 << 28, (1 << 28) + 1, (1 << 31) - 1, 1 << 31, .max - 1, .max,
    ]
    /// Values at and past the ends of a 64-bit field.
    static let edges64: [UInt64] = [
        0, 1, 6_249_999, 6_250_000, 450_000_000_000, 450_000_000_001, 1 << 31, 1 << 32, 1 << 62, 1 << 63, .max - 1,
        .max,
    ]
    /// Texts for a deep view's centre or zoom: numbers at MPFR's ends (0, a negative zoom, an
    /// exponent past its range, a hundred thousand digits), and texts that are not numbers (empty,
    /// cut short, infinity, hexadecimal, a NUL inside, bytes that are not UTF-8).
    static let viewTexts: [[UInt8]] =
        [
            "0", "-0", "-1", "-1.5e300", "1e-1000000000", "1e1000000000", "1e9999999999999999999", "-2.0000001",
            "", "1e", "e5", "--1", "1.2.3", "nan", "inf", "-inf", "@NaN@", "0x1p3", " 1", "1 ", "1,5", "٣",
        ].map { Array($0.utf8) } + [
            Array("1".utf8) + [0] + Array("junk".utf8), [0xFF, 0x31], [0x31, 0xC3],
            Array("0.".utf8) + [UInt8](repeating: 0x37, count: 100_000),
            [UInt8](repeating: 0x31, count: 200_000) + Array("e-200000".utf8),
        ]

    /// Numbers that are not numbers, or too large to square.
    static let doubles: [Double] = [
        .nan, .infinity, -.infinity, 0, -0.0, .leastNonzeroMagnitude, 1e300, -1e300, .greatestFiniteMagnitude, 1,
        0.999_999_999_999,
        5, -2,
    ]

    private struct Maker {
        var random: SeededRandom

        mutating func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

        mutating func make() -> Input {
            if chance(5) {
                let bytes = (0..<below(600)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                return Input(bytes: bytes, what: "\(bytes.count) random bytes")
            }
            var recipe = baseRecipe()
            var what =
                "a \(recipe.deep == nil ? "" : "deep ")"
                + "\(recipe.kind == 1 ? "counting" : "colouring \(recipe.scheme ?? 9)") recipe"
            var heartbeat: UInt64 = 100_000_000
            // Three in ten change the recipe, two a tile request, one the heartbeat, four the frames.
            let change = below(10)
            if change < 3 { what += ", " + mutate(&recipe) }
            // Tiles of the recipe as changed: a grid made taller asks for taller tiles.
            var tiles = (0..<(1 + below(3))).map { _ in tile(of: recipe) }
            if change == 3 || change == 4 {
                let field = below(5)
                let value = pick(HelperFrameFuzzer.edges32)
                tiles[0][field] = value
                what += ", tile field \(field) = \(value)"
            } else if change == 5 {
                heartbeat = pick(HelperFrameFuzzer.edges64)
                what += ", heartbeat \(heartbeat)"
            }
            var frames = [HelperWire.startFrame(heartbeat: heartbeat, recipe: recipe.bytes)]
            frames += tiles.map { HelperWire.tileFrame($0[0], x: $0[1], y: $0[2], width: $0[3], height: $0[4]) }
            if chance(20) {
                let second = baseRecipe()
                frames.append(HelperWire.startFrame(recipe: second.bytes))
                let more = tile(of: second)
                frames.append(HelperWire.tileFrame(more[0], x: more[1], y: more[2], width: more[3], height: more[4]))
                what += ", then a second recipe"
            }
            if change > 5 { what += ", " + mutate(frames: &frames) }
            var bytes = frames.flatMap { $0 }
            if chance(10) {
                bytes = Array(bytes.prefix(below(bytes.count + 1)))
                what += ", cut to \(bytes.count) bytes"
            }
            return Input(bytes: bytes, what: what)
        }

        /// A small recipe that renders in a moment: at most 24 × 24 pixels, 256 iterations.
        mutating func baseRecipe() -> Recipe {
            let width = UInt32(1 + below(24))
            let height = UInt32(1 + below(24))
            var recipe: Recipe
            if chance(20) {
                recipe = .counting(width: width, height: height)
            } else {
                let supersampling = chance(20) ? UInt32(2 + below(2)) : 1
                recipe = .colouring(UInt8(below(4)), width: width, height: height, supersampling: supersampling)
                recipe.keepsCounts = chance(20) ? 1 : 0
            }
            recipe.limit = UInt32(1 + below(256))
            if recipe.sealedBins != nil { recipe.sealedBins = recipe.limit + 2 }
            if chance(10) { recipe.julia = (pick([-0.8, 0.285, 0]), pick([0.156, 0.01, 0])) }
            if chance(10) {
                var deep = Recipe.Deep(length: UInt64(below(Int(recipe.limit))))
                // The exact view as a parent sends it: the grid's shorter side, a precision a zoom needs.
                deep.gridSide = UInt64(min(recipe.width, recipe.height))
                deep.bits = pick([64, 128, 1000])
                recipe.deep = deep
            }
            if chance(10) { recipe.simd = 0 }
            return recipe
        }

        /// A tile of `recipe`'s picture: index, x, y, width, height.
        mutating func tile(of recipe: Recipe) -> [UInt32] {
            let width = max(1, Int(recipe.width / max(1, recipe.supersampling)))
            let height = max(1, Int(recipe.height / max(1, recipe.supersampling)))
            let x = below(width)
            let y = below(height)
            return [
                UInt32(below(1000)), UInt32(x), UInt32(y), UInt32(1 + below(width - x)), UInt32(1 + below(height - y)),
            ]
        }

        /// One field of `recipe` set to a value at or past its limit; says which.
        mutating func mutate(_ recipe: inout Recipe) -> String {
            let value = pick(HelperFrameFuzzer.edges32)
            let number = pick(HelperFrameFuzzer.doubles)
            switch below(24) {
            case 0: recipe.version = value
            case 1: recipe.kind = UInt8(truncatingIfNeeded: value)
            case 2: recipe.supersampling = value
            case 3: recipe.format = UInt8(truncatingIfNeeded: value)
            case 4: recipe.keepsCounts = UInt8(truncatingIfNeeded: value)
            case 5: recipe.width = value
            case 6:
                // A tall grid: its recipe stays short, since rows are a formula.
                recipe.height = value
            case 7: recipe.columns = value
            case 8:
                var parts = recipe.realParts ?? [Double](repeating: -0.5, count: Int(recipe.width))
                if !parts.isEmpty { parts[below(parts.count)] = number }
                recipe.realParts = parts
                return "a real part of \(number)"
            case 9:
                recipe.formula = pick([
                    .view(center: number, halfHeight: 1, spacing: 0.1), .benchmarksGame(side: number),
                    .coarse(recipe.formula, every: value, samples: UInt32(below(70))),
                    .shifted(recipe.formula, first: value), .code(UInt8(truncatingIfNeeded: value)),
                    .coarse(
                        .coarse(
                            .coarse(.coarse(recipe.formula, every: value, samples: 64), every: value, samples: 64),
                            every: value, samples: 64), every: value, samples: 64),
                ])
                return "formula \(recipe.formula)"
            case 10: recipe.simd = UInt8(truncatingIfNeeded: value)
            case 11:
                // Iterations at the limit stay quick only outside the set.
                recipe.limit = value
                if value >= 1 << 20 {
                    recipe.realParts = [Double](repeating: 5, count: Int(min(recipe.width, 1 << 16)))
                    recipe.deep = nil
                }
                if recipe.sealedBins != nil { recipe.sealedBins = min(1 << 20, value &+ 2) }
            case 12: recipe.usefulLimit = value
            case 13: recipe.colorLimit = value
            case 14:
                recipe.julia = (number, pick(HelperFrameFuzzer.doubles))
                return "a Julia constant of \(recipe.julia!)"
            case 15:
                var deep = recipe.deep ?? Recipe.Deep(length: 2)
                let what = mutate(&deep, number: number)
                recipe.deep = deep
                return "a deep reference with " + what
            case 16: recipe.scheme = UInt8(truncatingIfNeeded: value)
            case 17:
                recipe.cycle = pick(HelperFrameFuzzer.doubles + [0.001, 0.000_999, 1e9, 1.000_001e9])
                return "a palette cycle of \(recipe.cycle)"
            case 18:
                recipe.offset = number
                return "a palette offset of \(number)"
            case 19:
                recipe.stops = (0..<pick([0, 1, 4096, 4097])).map { _ in (pick([0, 0.5]), 1, 2, 3) }
                return "\(recipe.stops.count) palette stops"
            case 20:
                recipe.stops[0].0 = pick(HelperFrameFuzzer.doubles)
                return "a palette stop at \(recipe.stops[0].0)"
            case 21:
                recipe.histogram.toggle()
                return "histogram \(recipe.histogram)"
            case 22: recipe.sealedBins = value
            default:
                recipe.trailing = (0..<(1 + below(8))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                return "\(recipe.trailing.count) bytes past the recipe"
            }
            return "recipe field \(value)"
        }

        /// One field of a deep view's reference set to a value at or past its limit; says which.
        mutating func mutate(_ deep: inout Recipe.Deep, number: Double) -> String {
            let wide = pick(HelperFrameFuzzer.edges64)
            switch below(9) {
            case 0: deep.length = wide
            case 1: deep.orbitDoubles = below(40)
            case 2: deep.tinyCount = wide
            case 3:
                deep.tinyCount = UInt64(1 + below(3))
                deep.tinySteps = (0..<Int(deep.tinyCount)).map { _ in pick(HelperFrameFuzzer.edges64) }
            case 4: deep.inverseZoom = (number, Int64(bitPattern: wide))
            case 5: deep.value = number
            case 6:
                // The exact view's texts, which MPFR reads: a number at its ends, or no number.
                let text = below(3)
                deep.texts[text] = pick(HelperFrameFuzzer.viewTexts)
                let shown = String(decoding: deep.texts[text].prefix(24), as: UTF8.self).debugDescription
                guard below(5) == 0 else { return "text \(text) \(shown) (\(deep.texts[text].count) bytes)" }
                deep.textCounts = deep.texts.map { UInt32($0.count) }
                deep.textCounts![text] = pick(HelperFrameFuzzer.edges32)
                return "text \(text) \(shown) sent with a count of \(deep.textCounts![text])"
            case 7:
                deep.bits = pick(HelperFrameFuzzer.edges32 + [63, 64, 65, 4_000_000, 4_000_001])
                return "an orbit precision of \(deep.bits) bits"
            default:
                let tallest = UInt64(ValueLimits.maximumGridRow)
                deep.gridSide = pick(HelperFrameFuzzer.edges64 + [tallest, tallest + 1])
                return "a grid side of \(deep.gridSide)"
            }
            return "length \(deep.length), \(deep.orbitDoubles.map { "\($0)" } ?? "its") doubles of \(deep.value), "
                + "\(deep.tinyCount) tiny steps \(deep.tinySteps), 1/zoom \(deep.inverseZoom)"
        }

        /// One change to the frames as a whole; says which.
        mutating func mutate(frames: inout [[UInt8]]) -> String {
            let at = below(frames.count)
            switch below(7) {
            case 0:
                let length = pick(
                    HelperFrameFuzzer.edges32 + [UInt32(frames[at].count - 9), UInt32(frames[at].count - 7)])
                frames[at].replaceSubrange(4..<8, with: withUnsafeBytes(of: length.littleEndian) { Array($0) })
                return "frame \(at)'s length \(length)"
            case 1:
                let kind = pick([0, 2, 4, 5, 6, 7, 255, UInt32.max, UInt32(truncatingIfNeeded: random.next())])
                frames[at].replaceSubrange(0..<4, with: withUnsafeBytes(of: kind.littleEndian) { Array($0) })
                return "frame \(at)'s kind \(kind)"
            case 2:
                for _ in 0..<(1 + below(4)) {
                    let byte = below(frames[at].count)
                    frames[at][byte] ^= UInt8(1 << below(8))
                }
                return "bits of frame \(at) flipped"
            case 3:
                frames.remove(at: at)
                return "frame \(at) dropped"
            case 4:
                frames.insert(frames[at], at: below(frames.count + 1))
                return "frame \(at) repeated"
            case 5:
                frames.swapAt(at, below(frames.count))
                return "frames swapped"
            default:
                return "as made"
            }
        }
    }
}
