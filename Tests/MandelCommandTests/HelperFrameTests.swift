import MandelbrotCore
import Testing

/// The real `mandel helper` reads its parent as a stranger: every length and number in a frame is
/// checked against the frame's kind, the recipe and the command line's limits before memory is
/// taken, and a bad frame ends it with one line, a `failed` frame and exit 65 (71 when the work is
/// within the limits but not within its memory), never a crash. Each runs under an address-space
/// limit (``HelperRun``), so that an allocation of gigabytes fails instead of passing unseen.
@Suite("Helper frames")
struct HelperFrameTests {
    typealias Recipe = HelperWire.Recipe

    /// A named stream of frames and the exit it must end with, with words its line must hold.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let input: [UInt8]
        let status: Int32
        let mentions: String
        var testDescription: String { name }
    }

    static func start(_ recipe: Recipe, heartbeat: UInt64 = 100_000_000) -> [UInt8] {
        HelperWire.startFrame(heartbeat: heartbeat, recipe: recipe.bytes)
    }

    static func refused(_ name: String, _ input: [UInt8], _ mentions: String, status: Int32 = 65) -> Case {
        Case(name: name, input: input, status: status, mentions: mentions)
    }

    /// Headers whose length no payload follows: each is refused before a byte is allocated for it.
    static let lengths: [Case] = [
        refused("a start frame of 2^31 bytes", HelperWire.frame(1, length: 1 << 31), "inside a start frame"),
        refused("a start frame of 2^32 − 1 bytes", HelperWire.frame(1, length: .max), "inside a start frame"),
        refused("a start frame of 0 bytes", HelperWire.frame(1, length: 0), "start frame of 0 bytes"),
        refused("a tile frame of 2^31 bytes", HelperWire.frame(3, length: 1 << 31), "tile frame has exactly 20"),
        refused("a tile frame of 1 byte", HelperWire.frame(3, length: 1, [0]), "tile frame has exactly 20"),
        refused("a done frame from the parent", HelperWire.frame(5, length: .max), "never sends"),
        refused("a failed frame from the parent", HelperWire.frame(6, length: 1 << 31), "never sends"),
        refused(
            "a ready frame from the parent", HelperWire.frame(2, length: 12, [UInt8](repeating: 0, count: 12)),
            "never sends"),
        refused("a progress frame from the parent", HelperWire.frame(4, length: 4, [0, 0, 0, 0]), "never sends"),
        refused("kind 0", HelperWire.frame(0, length: 1 << 31), "unknown kind 0"),
        refused("kind 2^32 − 1", HelperWire.frame(.max, length: 8), "unknown kind 4294967295"),
        refused("a header cut short", [1, 0, 0], "inside a frame's header"),
        refused(
            "a tile frame cut short", Array(HelperWire.tileFrame(0, x: 0, y: 0, width: 1, height: 1).prefix(18)),
            "inside a tile frame"),
        refused(
            "a recipe cut short", Array(start(Recipe()).dropLast(9)), "inside a start frame"),
    ]

    /// Recipes the command line could not have made.
    static let recipes: [Case] = {
        func with(_ change: (inout Recipe) -> Void) -> Recipe {
            var recipe = Recipe()
            change(&recipe)
            return recipe
        }
        /// A grid 2^28 rows tall of `formula`.
        func tall(_ formula: Recipe.Formula) -> Recipe {
            with {
                $0.formula = formula
                $0.height = 1 << 28
            }
        }
        /// A valid deep reference with one change.
        func deep(_ change: (inout Recipe.Deep) -> Void) -> Recipe.Deep {
            var deep = Recipe.Deep()
            change(&deep)
            return deep
        }
        func coarse(_ depth: Int) -> Recipe.Formula {
            depth == 0
                ? .view(center: 0, halfHeight: 1, spacing: 0.1) : .coarse(coarse(depth - 1), every: 1 << 28, samples: 1)
        }
        return [
            refused(
                "iterations 2^32 − 1, one past the most", start(with { $0.limit = .max }),
                "iteration limit is 4294967295"),
            refused("iterations 0", start(with { $0.limit = 0 }), "iteration limit is 0"),
            refused("a colouring limit past the most", start(with { $0.colorLimit = .max }), "colouring limit"),
            refused("supersampling 9", start(with { $0.supersampling = 9 }), "supersampling is 9"),
            refused("a palette cycle of 0.0001", start(with { $0.cycle = 0.0001 }), "palette cycle"),
            refused("a palette cycle of 2e9", start(with { $0.cycle = 2e9 }), "palette cycle"),
            refused(
                "a real part of NaN", start(with { $0.realParts = [.nan] + Array(repeating: 0, count: 15) }),
                "real part"),
            refused(
                "a real part of infinity", start(with { $0.realParts = Array(repeating: .infinity, count: 16) }),
                "real part"),
            refused(
                "a centre of NaN", start(with { $0.formula = .view(center: .nan, halfHeight: 1, spacing: 1) }),
                "centre"),
            refused(
                "coarse grids of coarse grids past 2^63 rows", start(tall(coarse(3))), "grid formula that reaches row"),
            refused("a coarse grid past the tallest picture", start(tall(coarse(1))), "grid formula that reaches row"),
            refused("a grid 2^28 + 1 rows tall", start(with { $0.height = (1 << 28) + 1 }), "grid height"),
            refused("2^32 − 1 columns", start(with { $0.columns = .max }), "grid columns"),
            refused("a heartbeat of 0", start(Recipe(), heartbeat: 0), "heartbeat of 0"),
            refused("a heartbeat of 2^64 − 1", start(Recipe(), heartbeat: .max), "heartbeat"),
            refused("version 3", start(with { $0.version = 3 }), "version 3"),
            refused("a byte past the end", start(with { $0.trailing = [0] }), "past the message's end"),
            refused(
                "an orbit of 2^63 steps",
                start(with { $0.deep = Recipe.Deep(length: 1 << 63, orbitDoubles: 4) }), "an orbit of"),
            refused(
                "an orbit of 2^64 − 1 steps",
                start(with { $0.deep = Recipe.Deep(length: .max, orbitDoubles: 4) }), "an orbit of"),
            // The deep view's exact view (DeepReference.ExactView), which MPFR reads for the pixels it counts again.
            refused("an orbit precision of 63 bits", start(with { $0.deep = deep { $0.bits = 63 } }), "63 bits"),
            refused(
                "an orbit precision of 4,000,001 bits", start(with { $0.deep = deep { $0.bits = 4_000_001 } }),
                "4000001 bits"),
            refused("a grid side of 0", start(with { $0.deep = deep { $0.gridSide = 0 } }), "shorter side is 0"),
            refused(
                "a grid side past the tallest grid", start(with { $0.deep = deep { $0.gridSide = .max } }),
                "shorter side"),
            refused(
                "a zoom that is not a number", start(with { $0.deep = deep { $0.texts[2] = Array("inf".utf8) } }),
                "zoom is not a decimal number"),
            refused(
                "a centre that is not UTF-8", start(with { $0.deep = deep { $0.texts[0] = [0x31, 0xFF] } }),
                "real part is not a decimal number"),
            refused(
                "a centre text longer than the recipe",
                start(with { $0.deep = deep { $0.textCounts = [3, .max, 4] } }), "at most"),
            // A flag is 0 or 1: each one the tests can set, holding 2 (round eight's wire-flag-any-nonzero read
            // any other byte as true, and no test had sent one).
            refused("a counts flag of 2", start(with { $0.keepsCounts = 2 }), "a flag holds 2"),
            refused("a vector-kernel flag of 255", start(with { $0.simd = 255 }), "a flag holds 255"),
            refused("a table flag of 2", start(with { $0.deep = deep { $0.usesTable = 2 } }), "a flag holds 2"),
        ]
    }()

    /// Tile requests against a recipe 16 pixels wide and 2^28 rows tall (a grid of one formula,
    /// so its recipe is short): each outside the picture, or too large for a frame or the memory.
    static let tiles: [Case] = {
        var tall = Recipe.colouring(2, width: 16, height: 1 << 28)
        tall.formula = .view(center: 0, halfHeight: 1, spacing: 1e-9)
        var tallBW = Recipe.colouring(0, width: 16, height: 1 << 28)
        tallBW.formula = tall.formula
        func tile(_ recipe: Recipe, _ x: UInt32, _ y: UInt32, _ width: UInt32, _ height: UInt32) -> [UInt8] {
            start(recipe) + HelperWire.tileFrame(0, x: x, y: y, width: width, height: height)
        }
        return [
            refused(
                "a tile of 16 × 2^28 RGB pixels (12.9 GB)", tile(tall, 0, 0, 16, 1 << 28), "longer than a frame holds"),
            refused(
                "a tile of 16 × 2^28 black-and-white pixels (512 MiB)", tile(tallBW, 0, 0, 16, 1 << 28), "needs",
                status: 71),
            refused("a tile one column past the picture", tile(tall, 1, 0, 16, 1), "lies outside"),
            refused("a tile starting past the picture", tile(tall, 16, 0, 1, 1), "lies outside"),
            refused("a tile 2^32 − 1 wide", tile(tall, 0, 0, .max, 1), "lies outside"),
            refused("a tile whose end passes 2^32", tile(tall, 0, .max, 1, .max), "lies outside"),
            refused("a tile of no width", tile(tall, 0, 0, 0, 1), "lies outside"),
            refused("a tile of no height", tile(tall, 0, 0, 1, 0), "lies outside"),
            refused("a tile of neither", tile(tall, 3, 3, 0, 0), "lies outside"),
            refused("a tile before any recipe", HelperWire.tileFrame(0, x: 0, y: 0, width: 1, height: 1), "before any"),
        ]
    }()

    @Test(
        "a bad frame ends the helper with its exit code, one line and a failed frame, never a crash",
        arguments: lengths + recipes + tiles)
    func badFrame(_ bad: Case) throws {
        let run = try HelperRun.feed(bad.input)
        #expect(run.refused(with: bad.status), "exit \(run.status) (signal: \(run.signalled)): \(run.standardError)")
        #expect(run.standardError.contains(bad.mentions), "\(run.standardError)")
    }

    /// A helper kept for the next pass (`mandel serve`'s pool) renders its recipe with the tile
    /// buffer of the last: a buffer of another pixel format, or without escape counts, must not be taken.
    @Test(
        "a second recipe of the same width but another pixel format or counts is rendered in a buffer of its own",
        arguments: [(UInt8(0), UInt32(1), UInt8(0), UInt32(2)), (2, 1, 1, 1), (1, 1, 1, 1)])
    func nextRecipeOnTheSameHelper(first: UInt8, firstSamples: UInt32, second: UInt8, secondSamples: UInt32) throws {
        let one = Recipe.colouring(first, width: 16, height: 12, supersampling: firstSamples)
        var two = Recipe.colouring(second, width: 16, height: 12, supersampling: secondSamples)
        two.keepsCounts = first == second ? 1 : 0
        try Self.expectServed(one, then: two)
    }

    /// Feeds `one` and a 16 × 12 tile of it, then `two` and a tile of it, and checks that the
    /// helper served both: a ready and a done frame each, and exit 0.
    static func expectServed(
        _ one: Recipe, then two: Recipe, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let input =
            start(one) + HelperWire.tileFrame(0, x: 0, y: 0, width: 16, height: 12)
            + start(two) + HelperWire.tileFrame(1, x: 0, y: 0, width: 16, height: 12)
        let run = try HelperRun.feed(input)
        #expect(run.status == 0 && !run.signalled, "\(run.standardError)", sourceLocation: sourceLocation)
        #expect(run.frameKinds == [2, 5, 2, 5], "\(run.frameKinds)", sourceLocation: sourceLocation)
    }

    @Test("a deep recipe with its exact view is served, and so is one at the exact view's limits")
    func deepRecipeServed() throws {
        var deep = Recipe()
        deep.deep = Recipe.Deep()
        deep.deep?.gridSide = 12
        // The exact view's ends: the fewest bits and the widest grid the wire takes, a zoom of 0 and
        // a centre of a thousand digits (numbers all, which the helper takes as they are).
        var ends = deep
        ends.deep?.bits = 64
        ends.deep?.gridSide = UInt64(ValueLimits.maximumGridRow)
        ends.deep?.texts = [
            Array("0.".utf8) + [UInt8](repeating: 0x33, count: 1000), Array("-0".utf8), Array("0".utf8),
        ]
        try Self.expectServed(deep, then: ends)
    }

    @Test("frames in order, at the limits, are served: two recipes, a tile of each, exit 0 when the input ends")
    func framesAtTheLimits() throws {
        // Iterations at the limit, far outside the set (every sample escapes at once), a grid 2^28 rows tall.
        var atLimits = Recipe.colouring(2, width: 4, height: 1 << 28)
        atLimits.limit = 100_000_000
        atLimits.realParts = [Double](repeating: 5, count: 4)
        atLimits.formula = .view(center: 0, halfHeight: 1, spacing: 1e-9)
        let input =
            Self.start(Recipe()) + HelperWire.tileFrame(7, x: 0, y: 0, width: 16, height: 12)
            + Self.start(atLimits) + HelperWire.tileFrame(8, x: 0, y: (1 << 28) - 2, width: 4, height: 2)
        let run = try HelperRun.feed(input)
        #expect(run.status == 0 && !run.signalled, "\(run.standardError)")
        #expect(run.frameKinds == [2, 5, 2, 5], "\(run.frameKinds)")
        #expect(run.standardError.isEmpty, "\(run.standardError)")
    }
}
