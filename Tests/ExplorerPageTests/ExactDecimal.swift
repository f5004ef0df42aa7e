/// Exact decimal arithmetic, to check the page's own (`decimal.js`, on BigInt) digit for digit:
/// whole numbers of any length as decimal digits, decimals as a whole number times a power of
/// ten, and fractions whose denominator is a small whole number times a power of ten. That is all
/// the view's geometry needs: a pixel's step is 3/(zoom·side), and a zoom's mantissa is short.
///
/// Written for clarity, not speed: a digit per array element. The longest number the tests use
/// has about 1,100 digits, and the tests do a few dozen operations on it.
struct Whole: Comparable, CustomStringConvertible {
    /// Decimal digits, least significant first; no zero at the top, so 0 is no digits.
    private(set) var digits: [UInt8]

    init(_ value: Int) {
        precondition(value >= 0, "a Whole is not negative")
        var digits: [UInt8] = []
        var rest = value
        while rest > 0 {
            digits.append(UInt8(rest % 10))
            rest /= 10
        }
        self.digits = digits
    }

    /// The number written with the decimal digits `text`.
    init(digits text: some StringProtocol) {
        digits = text.utf8.reversed().map { $0 - 0x30 }
        trim()
    }

    private init(reversed digits: [UInt8]) {
        self.digits = digits
        trim()
    }

    private mutating func trim() {
        while digits.last == 0 { digits.removeLast() }
    }

    var isZero: Bool { digits.isEmpty }
    var isOdd: Bool { (digits.first ?? 0) % 2 == 1 }
    var description: String {
        digits.isEmpty ? "0" : String(decoding: digits.reversed().map { $0 + 0x30 }, as: UTF8.self)
    }

    static func + (a: Whole, b: Whole) -> Whole {
        var sum: [UInt8] = []
        var carry = 0
        for index in 0..<max(a.digits.count, b.digits.count) {
            let total = Int(a.digit(index)) + Int(b.digit(index)) + carry
            sum.append(UInt8(total % 10))
            carry = total / 10
        }
        if carry > 0 { sum.append(UInt8(carry)) }
        return Whole(reversed: sum)
    }

    /// a − b, for a ≥ b.
    static func - (a: Whole, b: Whole) -> Whole {
        precondition(b <= a, "a Whole is not negative")
        var difference: [UInt8] = []
        var borrow = 0
        for index in 0..<a.digits.count {
            var digit = Int(a.digit(index)) - Int(b.digit(index)) - borrow
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 10 }
            difference.append(UInt8(digit))
        }
        return Whole(reversed: difference)
    }

    static func < (a: Whole, b: Whole) -> Bool {
        if a.digits.count != b.digits.count { return a.digits.count < b.digits.count }
        for index in a.digits.indices.reversed() where a.digits[index] != b.digits[index] {
            return a.digits[index] < b.digits[index]
        }
        return false
    }

    private func digit(_ index: Int) -> UInt8 { index < digits.count ? digits[index] : 0 }

    /// The product with a small whole number (below 10^15).
    func times(_ factor: Int) -> Whole {
        precondition((0..<1_000_000_000_000_000).contains(factor), "a small factor")
        var product: [UInt8] = []
        var carry = 0
        for digit in digits {
            let total = Int(digit) * factor + carry
            product.append(UInt8(total % 10))
            carry = total / 10
        }
        while carry > 0 {
            product.append(UInt8(carry % 10))
            carry /= 10
        }
        return Whole(reversed: product)
    }

    /// The product with 10^`places`.
    func shifted(_ places: Int) -> Whole {
        precondition(places >= 0)
        return isZero ? self : Whole(reversed: [UInt8](repeating: 0, count: places) + digits)
    }

    /// The quotient and remainder of a division by a small whole number (1 to 10^15).
    func divided(by divisor: Int) -> (quotient: Whole, remainder: Int) {
        precondition((1...1_000_000_000_000_000).contains(divisor), "a small divisor")
        var quotient: [UInt8] = []
        var remainder = 0
        for digit in digits.reversed() {
            remainder = remainder * 10 + Int(digit)
            quotient.append(UInt8(remainder / divisor))
            remainder %= divisor
        }
        return (Whole(reversed: quotient.reversed()), remainder)
    }

    /// The quotient and remainder of a division by 10^`places`.
    func split(_ places: Int) -> (high: Whole, low: Whole) {
        (Whole(reversed: Array(digits.dropFirst(places))), Whole(reversed: Array(digits.prefix(places))))
    }

    /// The value, if it is below 10^15.
    var small: Int? {
        digits.count <= 15 ? digits.reversed().reduce(0) { $0 * 10 + Int($1) } : nil
    }
}

/// A whole number with a sign.
struct Signed: Equatable {
    var negative: Bool
    var magnitude: Whole

    init(negative: Bool = false, _ magnitude: Whole) {
        self.negative = negative && !magnitude.isZero
        self.magnitude = magnitude
    }

    static prefix func - (a: Signed) -> Signed { Signed(negative: !a.negative, a.magnitude) }

    static func + (a: Signed, b: Signed) -> Signed {
        if a.negative == b.negative { return Signed(negative: a.negative, a.magnitude + b.magnitude) }
        return a.magnitude < b.magnitude
            ? Signed(negative: b.negative, b.magnitude - a.magnitude)
            : Signed(negative: a.negative, a.magnitude - b.magnitude)
    }

    static func - (a: Signed, b: Signed) -> Signed { a + -b }

    func times(_ factor: Int) -> Signed { Signed(negative: negative != (factor < 0), magnitude.times(abs(factor))) }
    func shifted(_ places: Int) -> Signed { Signed(negative: negative, magnitude.shifted(places)) }
}

/// A decimal number, exactly: mantissa · 10^exponent.
struct ExactDecimal: Equatable {
    private(set) var mantissa: Signed
    private(set) var exponent: Int

    init(_ mantissa: Signed, exponent: Int) {
        self.mantissa = mantissa
        self.exponent = exponent
        // No zero at the end of the mantissa, so that equal numbers are equal values.
        while !self.mantissa.magnitude.isZero && !self.mantissa.magnitude.digits.isEmpty
            && self.mantissa.magnitude.digits[0] == 0
        {
            self.mantissa.magnitude = self.mantissa.magnitude.split(1).high
            self.exponent += 1
        }
        if self.mantissa.magnitude.isZero { self.exponent = 0 }
    }

    init(_ value: Int) { self.init(Signed(negative: value < 0, Whole(abs(value))), exponent: 0) }

    /// Reads "-0.5", "1.333e1086", "12", ".5": the command line's number rule.
    init(_ text: String) {
        let match = text.wholeMatch(of: /([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?/)!
        let (sign, whole, fraction, power) = (match.output.1, match.output.2, match.output.3 ?? "", match.output.4)
        self.init(
            Signed(negative: sign == "-", Whole(digits: whole + fraction)),
            exponent: (power.flatMap { Int($0) } ?? 0) - fraction.count)
    }

    static func + (a: ExactDecimal, b: ExactDecimal) -> ExactDecimal {
        let exponent = min(a.exponent, b.exponent)
        return ExactDecimal(
            a.mantissa.shifted(a.exponent - exponent) + b.mantissa.shifted(b.exponent - exponent), exponent: exponent)
    }

    static func - (a: ExactDecimal, b: ExactDecimal) -> ExactDecimal {
        a + ExactDecimal(-b.mantissa, exponent: b.exponent)
    }

    /// The product with a decimal whose mantissa is small (below 10^15).
    func times(_ other: ExactDecimal) -> ExactDecimal {
        let factor = other.mantissa.magnitude.small!
        return ExactDecimal(
            mantissa.times(other.mantissa.negative ? -factor : factor), exponent: exponent + other.exponent)
    }

    /// The exponent of the first digit: 2 for 123, -3 for 0.00123.
    var leadingExponent: Int { mantissa.magnitude.digits.count - 1 + exponent }

    /// Digits and a point, never an exponent ("0.00012", "1200"), no zero after the last digit, never "-0".
    var plain: String {
        let digits = mantissa.magnitude.description
        if mantissa.magnitude.isZero { return "0" }
        let sign = mantissa.negative ? "-" : ""
        if exponent >= 0 { return sign + digits + String(repeating: "0", count: exponent) }
        let point = digits.count + exponent
        if point > 0 { return sign + digits.prefix(point) + "." + digits.dropFirst(point) }
        return sign + "0." + String(repeating: "0", count: -point) + digits
    }

    /// One digit before the point and an exponent: "1.2e-4", "5e0".
    var scientific: String {
        let digits = mantissa.magnitude.description
        if mantissa.magnitude.isZero { return "0" }
        let rest = digits.dropFirst()
        return (mantissa.negative ? "-" : "") + digits.prefix(1) + (rest.isEmpty ? "" : "." + rest)
            + "e\(leadingExponent)"
    }

    /// Plain when 1e-7 < |value| < 1e21 (as JavaScript writes numbers), scientific otherwise: a zoom's form.
    var auto: String { leadingExponent <= -7 || leadingExponent >= 21 ? scientific : plain }
}

/// A fraction numerator / (denominator · 10^scale), the denominator a small whole number.
struct Fraction {
    var numerator: Signed
    var denominator: Int
    var scale: Int

    init(_ numerator: Signed, denominator: Int = 1, scale: Int = 0) {
        precondition(denominator >= 1)
        // A negative scale is a factor of the numerator.
        self.numerator = scale < 0 ? numerator.shifted(-scale) : numerator
        self.denominator = denominator
        self.scale = max(scale, 0)
    }

    init(_ value: ExactDecimal) { self.init(value.mantissa, scale: -value.exponent) }

    static func + (a: Fraction, b: Fraction) -> Fraction {
        let scale = max(a.scale, b.scale)
        return Fraction(
            a.numerator.times(b.denominator).shifted(scale - a.scale)
                + b.numerator.times(a.denominator).shifted(scale - b.scale),
            denominator: a.denominator * b.denominator, scale: scale)
    }

    static func - (a: Fraction, b: Fraction) -> Fraction {
        a + Fraction(-b.numerator, denominator: b.denominator, scale: b.scale)
    }

    /// The product with a decimal whose mantissa is small.
    func times(_ value: ExactDecimal) -> Fraction {
        let factor = value.mantissa.magnitude.small!
        return Fraction(
            numerator.times(value.mantissa.negative ? -factor : factor), denominator: denominator,
            scale: scale - value.exponent)
    }

    /// The nearest multiple of 10^-`places`, ties to the even last digit.
    func rounded(toPlaces places: Int) -> ExactDecimal {
        // |value|·10^places = |numerator| / (denominator · 10^(scale - places)): a quotient, and
        // a remainder to compare with half the divisor.
        let magnitude = numerator.magnitude
        let quotient: Whole
        let twiceRemainder: Whole
        let divisor: Whole
        if scale >= places {
            let (byDenominator, remainder) = magnitude.divided(by: denominator)
            let (high, low) = byDenominator.split(scale - places)
            quotient = high
            // The remainder of the whole division is low·denominator + remainder.
            twiceRemainder = (low.times(denominator) + Whole(remainder)).times(2)
            divisor = Whole(denominator).shifted(scale - places)
        } else {
            let (whole, remainder) = magnitude.shifted(places - scale).divided(by: denominator)
            quotient = whole
            twiceRemainder = Whole(remainder).times(2)
            divisor = Whole(denominator)
        }
        let up = divisor < twiceRemainder || (twiceRemainder == divisor && quotient.isOdd)
        return ExactDecimal(
            Signed(negative: numerator.negative, up ? quotient + Whole(1) : quotient), exponent: -places)
    }
}

/// The view's geometry as `decimal.js` documents it, computed exactly: what the page must answer.
enum ViewGeometry {
    /// 5 + the smallest k with 10^k ≥ zoom·minSide/3: the digits after the point a centre keeps.
    static func centreDigits(zoom: ExactDecimal, minSide: Int) -> Int {
        // zoom·minSide = N·10^e with N = mantissa·minSide ≥ 1, and 10^k ≥ N·10^e/3 ⇔ 3·10^(k−e) ≥ N,
        // whose smallest k − e is ≥ 0 (3·10^−1 < 1 ≤ N).
        let n = zoom.mantissa.magnitude.times(minSide)
        var j = 0
        while Whole(3).shifted(j) < n { j += 1 }
        return zoom.exponent + j + 5
    }

    /// The distance between neighbouring pixels' samples, 3/(zoom·minSide).
    static func step(zoom: ExactDecimal, minSide: Int) -> Fraction {
        Fraction(Signed(Whole(3)), denominator: zoom.mantissa.magnitude.small! * minSide, scale: zoom.exponent)
    }

    /// `centreAfterPan`: the centre moved by (dx, dy) pixels of the picture's grid (y down),
    /// each part that moves rounded to ``centreDigits(zoom:minSide:)`` places; a part that does
    /// not move keeps its digits.
    static func centreAfterPan(centre: String, zoom: String, size: (Int, Int), dx: String, dy: String) -> String {
        let parts = centre.split(separator: ",").map { ExactDecimal(String($0)) }
        let zoom = ExactDecimal(zoom)
        let minSide = min(size.0, size.1)
        let step = step(zoom: zoom, minSide: minSide)
        let digits = centreDigits(zoom: zoom, minSide: minSide)
        func moved(_ value: ExactDecimal, by pixels: ExactDecimal) -> String {
            pixels.mantissa.magnitude.isZero
                ? value.plain : (Fraction(value) + step.times(pixels)).rounded(toPlaces: digits).plain
        }
        return moved(parts[0], by: ExactDecimal(dx)) + "," + moved(parts[1], by: ExactDecimal(0) - ExactDecimal(dy))
    }

    /// `zoomBy`: the zoom times the factor, in the auto form.
    static func zoomBy(_ zoom: String, _ factor: String) -> String {
        ExactDecimal(zoom).times(ExactDecimal(factor)).auto
    }

    /// `centreAfterZoom`: the picture zoomed by `factor` about the viewport point (x, y), the
    /// viewport's corner at `offset` in the picture's grid; that point stays where it is on screen.
    static func centreAfterZoom(
        centre: String, zoom: String, size: (Int, Int), x: String, y: String, factor: String, offset: (Int, Int)
    ) -> (center: String, zoom: String) {
        let parts = centre.split(separator: ",").map { ExactDecimal(String($0)) }
        let oldZoom = ExactDecimal(zoom)
        let newZoom = oldZoom.times(ExactDecimal(factor))
        let minSide = min(size.0, size.1)
        let oldStep = step(zoom: oldZoom, minSide: minSide)
        let newStep = step(zoom: newZoom, minSide: minSide)
        let half = ExactDecimal("0.5")
        let (width, height) = (ExactDecimal(size.0).times(half), ExactDecimal(size.1).times(half))
        let (x, y) = (ExactDecimal(x), ExactDecimal(y))
        // The point under the cursor, p = centre + (offset + cursor − size/2)·(1, −1)·oldStep; the
        // new centre is p + (size/2 − cursor)·(1, −1)·newStep.
        let re =
            Fraction(parts[0]) + oldStep.times(ExactDecimal(offset.0) + x - width) + newStep.times(width - x)
        let im =
            Fraction(parts[1]) - oldStep.times(ExactDecimal(offset.1) + y - height) - newStep.times(height - y)
        let digits = centreDigits(zoom: newZoom, minSide: minSide)
        return (
            re.rounded(toPlaces: digits).plain + "," + im.rounded(toPlaces: digits).plain, newZoom.auto
        )
    }
}
