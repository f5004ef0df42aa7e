/// The helper protocol's bytes as the tests write them, field by field, so that any one field can
/// be set to any value (docs/process.md, "Frames"; `HelperFrame` and `TileRecipe.encoded`).
enum HelperWire {
    /// Frame kinds.
    static let start: UInt32 = 1
    static let ready: UInt32 = 2
    static let tile: UInt32 = 3
    static let progress: UInt32 = 4
    static let done: UInt32 = 5
    static let failed: UInt32 = 6

    /// A frame: its kind, its length (by default the payload's), and the payload.
    static func frame(_ kind: UInt32, length: UInt32? = nil, _ payload: [UInt8] = []) -> [UInt8] {
        var bytes = Bytes()
        bytes.u32(kind)
        bytes.u32(length ?? UInt32(payload.count))
        return bytes.data + payload
    }

    /// A `start` frame: the heartbeat interval, then the recipe.
    static func startFrame(heartbeat: UInt64 = 100_000_000, recipe: [UInt8]) -> [UInt8] {
        var payload = Bytes()
        payload.u64(heartbeat)
        return frame(start, payload.data + recipe)
    }

    /// A `tile` request: its index and rectangle.
    static func tileFrame(_ index: UInt32, x: UInt32, y: UInt32, width: UInt32, height: UInt32) -> [UInt8] {
        var payload = Bytes()
        for value in [index, x, y, width, height] { payload.u32(value) }
        return frame(tile, payload.data)
    }

    /// Little-endian fields appended in order.
    struct Bytes {
        var data: [UInt8] = []
        mutating func u8(_ value: UInt8) { data.append(value) }
        mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
        mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
        mutating func f64(_ value: Double) { u64(value.bitPattern) }
    }

    /// A recipe, every field settable; the defaults make a small valid smooth-coloured one.
    struct Recipe {
        enum Formula {
            case view(center: Double, halfHeight: Double, spacing: Double)
            case benchmarksGame(side: Double)
            indirect case coarse(Formula, every: UInt32, samples: UInt32)
            indirect case shifted(Formula, first: UInt32)
            /// An unknown code.
            case code(UInt8)
        }

        /// A deep view's reference: an orbit of `length` steps of `value`.
        struct Deep {
            var length: UInt64 = 4
            var orbitDoubles: Int?
            var value = 0.25
            var tinyCount: UInt64 = 0
            var tinySteps: [UInt64] = []
            var center = (0.25, 0.0)
            var inverseZoom = (0.5, Int64(-40))
            var largest = (0.5, Int64(-40))
            var usesTable: UInt8 = 1
            /// The view as MPFR reads it (`DeepReference.ExactView`): the centre's real and imaginary
            /// parts and the zoom, each sent as a count and its bytes; the orbit's bits; the grid's
            /// shorter side.
            var texts: [[UInt8]] = [Array("0.25".utf8), Array("0".utf8), Array("1e20".utf8)]
            /// A count sent for each text other than its length, where set.
            var textCounts: [UInt32]?
            var bits: UInt32 = 128
            var gridSide: UInt64 = 16
        }

        var version: UInt32 = 2
        /// 1 counting, 2 pixels, 3 supersampled.
        var kind: UInt8 = 2
        var supersampling: UInt32 = 1
        /// 1 bilevel, 2 gray, 3 RGB.
        var format: UInt8 = 3
        var keepsCounts: UInt8 = 0
        var width: UInt32 = 16
        var height: UInt32 = 12
        /// Defaults to `width`.
        var columns: UInt32?
        /// Defaults to `columns` values across [-2, 1].
        var realParts: [Double]?
        var formula = Formula.view(center: 0, halfHeight: 6, spacing: 0.2)
        var simd: UInt8 = 1
        var limit: UInt32 = 64
        var usefulLimit: UInt32?
        var julia: (Double, Double)?
        var deep: Deep?
        /// 0 bw, 1 gray, 2 smooth, 3 histogram; nil: no colouring (a counting recipe).
        var scheme: UInt8? = 2
        var colorLimit: UInt32?
        var cycle = 64.0
        var offset = 0.0
        var stops: [(Double, UInt8, UInt8, UInt8)] = [(0, 0, 7, 100), (0.5, 255, 170, 0)]
        var histogram = false
        /// The sealed counts' length (a colouring pass of histogram colouring); nil: not sealed.
        var sealedBins: UInt32?
        /// Bytes after the recipe's end.
        var trailing: [UInt8] = []

        /// A recipe for a picture of `width` × `height` pixels coloured by `scheme` (0 to 3).
        static func colouring(
            _ scheme: UInt8, width: UInt32 = 16, height: UInt32 = 12, supersampling: UInt32 = 1
        )
            -> Recipe
        {
            var recipe = Recipe()
            recipe.scheme = scheme
            recipe.supersampling = supersampling
            recipe.kind = supersampling > 1 ? 3 : 2
            recipe.width = width * supersampling
            recipe.height = height * supersampling
            recipe.format = scheme >= 2 ? 3 : (scheme == 0 && supersampling == 1 ? 1 : 2)
            recipe.formula = .view(
                center: 0, halfHeight: Double(height * supersampling) / 2, spacing: 2.4 / Double(height))
            if scheme == 3 {
                recipe.histogram = true
                recipe.sealedBins = min(1 << 20, recipe.limit + 2)
            }
            return recipe
        }

        /// Histogram colouring's counting pass.
        static func counting(width: UInt32 = 16, height: UInt32 = 12) -> Recipe {
            var recipe = Recipe()
            recipe.kind = 1
            recipe.scheme = nil
            recipe.histogram = true
            recipe.width = width
            recipe.height = height
            return recipe
        }

        var bytes: [UInt8] {
            var out = Bytes()
            out.u32(version)
            out.u8(kind)
            out.u32(supersampling)
            out.u8(format)
            out.u8(keepsCounts)
            out.u32(width)
            out.u32(height)
            let columnCount = columns ?? width
            out.u32(columnCount)
            let span = Double(max(1, columnCount))
            let reals: [Double] =
                realParts
                ?? (0..<Int(min(columnCount, 1 << 16))).map { (column: Int) -> Double in
                    -2 + 3 * Double(column) / span
                }
            for value in reals { out.f64(value) }
            Self.write(formula, to: &out)
            out.u8(simd)
            out.u32(limit)
            out.u32(usefulLimit ?? limit)
            out.u8(julia == nil ? 0 : 1)
            if let julia {
                out.f64(julia.0)
                out.f64(julia.1)
            }
            out.u8(deep == nil ? 0 : 1)
            if let deep { Self.write(deep, to: &out) }
            out.u8(scheme == nil ? 0 : 1)
            if let scheme {
                out.u8(scheme)
                out.u32(colorLimit ?? limit)
                out.f64(cycle)
                out.f64(offset)
                out.u32(UInt32(stops.count))
                for stop in stops {
                    out.f64(stop.0)
                    out.u8(stop.1)
                    out.u8(stop.2)
                    out.u8(stop.3)
                }
            }
            out.u8(histogram ? 1 : 0)
            if histogram {
                out.u32(limit)
                out.u8(sealedBins == nil ? 0 : 1)
                if let sealedBins {
                    out.u32(sealedBins)
                    for bin in 0..<min(sealedBins, 1 << 20) { out.u64(UInt64(bin % 7)) }
                }
            }
            return out.data + trailing
        }

        private static func write(_ formula: Formula, to out: inout Bytes) {
            switch formula {
            case .view(let center, let halfHeight, let spacing):
                out.u8(1)
                out.f64(center)
                out.f64(halfHeight)
                out.f64(spacing)
            case .benchmarksGame(let side):
                out.u8(2)
                out.f64(side)
            case .coarse(let base, let every, let samples):
                out.u8(3)
                out.u32(every)
                out.u32(samples)
                write(base, to: &out)
            case .shifted(let base, let first):
                out.u8(4)
                out.u32(first)
                write(base, to: &out)
            case .code(let code): out.u8(code)
            }
        }

        private static func write(_ deep: Deep, to out: inout Bytes) {
            out.u64(deep.length)
            let doubles = deep.orbitDoubles ?? 2 * (Int(min(deep.length, 1 << 16)) + 1)
            for _ in 0..<doubles { out.f64(deep.value) }
            out.u64(deep.tinyCount)
            for step in deep.tinySteps {
                out.u64(step)
                out.f64(deep.value)
                out.f64(deep.value)
                out.u64(0)
            }
            out.f64(deep.center.0)
            out.f64(deep.center.1)
            out.f64(deep.inverseZoom.0)
            out.u64(UInt64(bitPattern: deep.inverseZoom.1))
            out.u8(0)
            out.f64(deep.largest.0)
            out.u64(UInt64(bitPattern: deep.largest.1))
            out.u8(deep.usesTable)
            for (index, text) in deep.texts.enumerated() {
                out.u32(deep.textCounts?[index] ?? UInt32(text.count))
                out.data += text
            }
            out.u32(deep.bits)
            out.u64(deep.gridSide)
        }
    }
}

/// Bytes a helper's session reads in order, as from a pipe; `unread` is what is left.
final class WireInput {
    private let bytes: [UInt8]
    private var offset = 0
    /// The most bytes one read hands over, as a pipe hands over what has arrived.
    private let piece: Int

    init(_ bytes: [UInt8], piece: Int = .max) {
        self.bytes = bytes
        self.piece = piece
    }

    var unread: Int { bytes.count - offset }

    /// Copies up to `count` bytes (at most `piece`) to `pointer`; 0 at the end.
    func read(_ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        let taken = min(count, unread, piece)
        bytes.withUnsafeBytes { pointer.copyMemory(from: $0.baseAddress! + offset, byteCount: taken) }
        offset += taken
        return taken
    }
}
