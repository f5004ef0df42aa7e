import DeepShim
import Platform

/// A view deeper than `Double` can resolve: the centre and zoom as the decimal text the user
/// gave, never rounded through `Double`, and how its pixels are computed.
///
/// The pixel convention is ``Viewport``'s at any depth: pixel (x, y) samples
/// `re = cx + (x + 0.5 − W/2)·s`, `im = cy − (y + 0.5 − H/2)·s`, `s = 3 / (zoom · min(W, H))`.
/// The centre is read by GNU MPFR with enough bits to place every pixel (see ``precisionBits(for:)``),
/// the pixels are perturbations of one reference orbit at the centre.
public struct DeepView: Sendable, Hashable {
    /// The real part of the centre, as decimal text.
    public let centerReal: String
    /// The imaginary part of the centre, as decimal text.
    public let centerImaginary: String
    /// The zoom, as decimal text.
    public let zoom: String
    /// Whether pixels skip iterations through the table of bilinear approximations (BLA);
    /// plain perturbation, every step one by one, otherwise.
    public var usesTable: Bool
    /// The precision of an orbit shared with deeper views at the same centre (a zoom's frames
    /// share the deepest frame's, ``ZoomOrbit``): the reference is computed with these bits where
    /// they are more than the view's own, so that each frame is the same whether rendered alone
    /// or with the others. Nil for a view of its own.
    public var sharedOrbitBits: Int?
    /// Whether the orbit stops at the period of a nucleus it finds in the view (the ball method,
    /// `deep_context.period_radius`): the counts are the same either way, for a pixel that reaches
    /// the orbit's end rebases onto its start; `--period off` computes the orbit to its escape or the limit.
    public var detectsPeriod = true

    /// A deep view; nil unless all three texts are decimal numbers and the zoom is positive.
    public init?(centerReal: String, centerImaginary: String, zoom: String, usesTable: Bool = true) {
        guard [centerReal, centerImaginary, zoom].allSatisfy(Self.isNumber),
            deep_inverse_zoom(zoom, 64).m > 0
        else { return nil }
        self.centerReal = centerReal
        self.centerImaginary = centerImaginary
        self.zoom = zoom
        self.usesTable = usesTable
    }

    /// The zoom from which a view is rendered by perturbation unless `--precision double` is asked
    /// for: 10⁶. Double's rounding decides the counts of some pixels near the set's edge wrongly at
    /// any zoom (chaotic orbits amplify an error of 10⁻¹⁶ past the bailout's margin), and from here
    /// the share passes 0.1% at some centres (measured against a per-pixel MPFR loop: 1.4% at the
    /// seahorse valley, 2.6% at "5e227"'s centre, 10,000 iterations, zoom 10⁶), where perturbation,
    /// with the pixels it cannot decide counted again in MPFR, gets every count right.
    public static let defaultPerturbationZoomExponent = 6.0

    /// Whether `text` is a finite decimal number, read in full.
    public static func isNumber(_ text: String) -> Bool { deep_is_number(text) != 0 }

    /// The decimal exponent of the zoom: about log₁₀(zoom).
    public var zoomExponent: Double { Self.decimalExponent(ofZoom: zoom) }

    /// About log₁₀ of the zoom `text` (a positive decimal number); infinity where 1/zoom is below
    /// the smallest number MPFR holds (a zoom past 1e323228496), nan where `text` is not a number.
    public static func decimalExponent(ofZoom text: String) -> Double {
        guard isNumber(text) else { return .nan }
        let inverse = deep_inverse_zoom(text, 64)
        guard inverse.m > 0 else { return .infinity }
        return -(log2(inverse.m) + Double(inverse.e)) * 0.301_029_995_663_981_2
    }

    /// The bits of precision the reference orbit needs for a grid of `size` samples: enough
    /// for the pixel step relative to the centre, plus 64 bits of margin.
    public func precisionBits(for size: ImageSize) -> Int {
        max(Self.precisionBits(zoomExponent: zoomExponent, size: size), sharedOrbitBits ?? 0)
    }

    /// The bits a view of zoom 10^`zoomExponent` needs for a grid of `size` samples (see
    /// ``precisionBits(for:)``).
    public static func precisionBits(zoomExponent: Double, size: ImageSize) -> Int {
        let pixelBits = zoomExponent / 0.301_029_995_663_981_2 + log2(Double(max(1, min(size.width, size.height))))
        return max(64, Int(pixelBits.rounded(.up)) + 64)
    }

    /// The view in `Double`s, for the report: the zoom clamped to the largest finite `Double`.
    public var approximateViewport: Viewport {
        Viewport(
            centerReal: Double(centerReal) ?? 0, centerImaginary: Double(centerImaginary) ?? 0,
            zoom: Swift.min(Double(zoom) ?? .greatestFiniteMagnitude, .greatestFiniteMagnitude))
    }
}

/// How a render computes its pixels.
public enum PrecisionMode: String, CaseIterable, Sendable {
    /// `Double` coordinates and the vector kernel.
    case double
    /// Perturbation of one reference orbit computed in MPFR (see ``DeepView``).
    case perturbation
}

/// How long the serial parts of a deep render took, and what they made: no time at all for a
/// render that took a reference computed before (``DeepReferenceStore``).
public struct DeepPhases: Sendable, Hashable {
    /// Seconds to compute the reference orbit in MPFR.
    public let orbitSeconds: Double
    /// Seconds to build the BLA table (zero without one).
    public let tableSeconds: Double
    /// The reference orbit's steps (to its escape or the iteration limit).
    public let orbitLength: Int
    /// The MPFR precision of the orbit, in bits.
    public let precisionBits: Int
    /// Whether the deltas needed the extended exponent.
    public let extendedExponent: Bool
    /// The period the orbit stopped at, where it found a nucleus in the view (``DeepView/detectsPeriod``):
    /// its length, every pixel rebasing onto its start at its end; nil where it escaped or reached the limit.
    public var orbitPeriod: Int? = nil

    /// The same orbit and table, taken as they were: no time spent on them.
    public var reused: DeepPhases {
        DeepPhases(
            orbitSeconds: 0, tableSeconds: 0, orbitLength: orbitLength, precisionBits: precisionBits,
            extendedExponent: extendedExponent, orbitPeriod: orbitPeriod)
    }
}
