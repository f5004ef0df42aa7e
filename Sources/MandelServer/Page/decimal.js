// Exact decimal arithmetic for the page of `mandel serve`, on BigInt.
//
// A view's centre and zoom are decimal strings of any length ("1.333e1086", a centre with 1,000
// digits): a Double would cap the depth at about 1e15, so nothing here goes through one except the
// CSS offsets of `relativePlacement`, which are pixel distances on screen.
//
// A decimal is `{m, e}`: the value m·10^e, m a BigInt with no trailing zero digit (0 is {m: 0n, e: 0}).
// A rational is `{n, d}`: n/d, both BigInt, d > 0, not reduced.
//
// Rounding: where a result must be rounded (a centre, a pixel step, the short form), it is rounded to
// the nearest, ties to even (the last kept digit even), like MPFR's MPFR_RNDN but in decimal.
//
// Numbers follow the command line's rule: an optional sign, digits with an optional fraction, an
// optional exponent (`12`, `-0.5`, `2.5e-3`, `.5`, `5.`); blanks (spaces, tabs) around it are ignored;
// hexadecimal, `inf`, `nan` and digit separators are refused. Arguments documented as "a decimal"
// may be such a string, a finite JavaScript number (read as its shortest decimal spelling, so 0.1 is
// exactly 1/10), or a `{m, e}` from `parseDecimal`.

const TEN = 10n;
const NUMBER = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;

/** The largest decimal exponent accepted, far beyond any zoom mandel renders (1e1000000). */
const MAX_EXPONENT = 1e15;

// MARK: - Parsing and formatting

/**
 * Reads a decimal number.
 * @param {string|number|{m: bigint, e: number}} text - such as "-0.5", "1.333e1086", " 2 ".
 * @returns {{m: bigint, e: number}} the exact value.
 * @throws {SyntaxError} when `text` does not follow the number rule; {RangeError} for an exponent
 *   beyond ±1e15 or a number that is not finite.
 */
export function parseDecimal(text) {
  if (text !== null && typeof text === "object" && typeof text.m === "bigint") return normalize(text.m, text.e);
  if (typeof text === "number") {
    if (!Number.isFinite(text)) throw new RangeError(`not a finite number: ${text}`);
    text = String(text);
  }
  const s = String(text).replace(/^[ \t]+|[ \t]+$/g, "");
  const match = NUMBER.exec(s);
  const whole = match?.[2] ?? "";
  const fraction = match?.[3] ?? "";
  if (!match || whole.length + fraction.length === 0) {
    throw new SyntaxError(`'${s}' is not a decimal number: give one such as -0.5 or 2.5e-3`);
  }
  const exponent = match[4] === undefined ? 0 : Number(match[4]);
  if (!(Math.abs(exponent) <= MAX_EXPONENT)) throw new RangeError(`'${s}': the exponent is out of range`);
  const magnitude = BigInt(whole + fraction);
  return normalize(match[1] === "-" ? -magnitude : magnitude, exponent - fraction.length);
}

/**
 * Writes a decimal back as text.
 * @param {*} value - a decimal.
 * @param {"plain"|"auto"|"scientific"} [form="plain"] - plain: digits and a point, never an exponent
 *   ("0.00012", "1200"), for centres; scientific: one digit before the point and an exponent
 *   ("1.2e-4", "1.2e3", "5e0"); auto: plain when 1e-7 < |value| < 1e21 (as JavaScript writes numbers),
 *   scientific otherwise, for zooms.
 * @returns {string} with no trailing zero after a point, no "+" in the exponent, and never "-0".
 */
export function formatDecimal(value, form = "plain") {
  const { m, e } = parseDecimal(value);
  if (m === 0n) return "0";
  const sign = m < 0n ? "-" : "";
  const digits = (m < 0n ? -m : m).toString();
  const leading = digits.length - 1 + e; // the exponent of the first digit
  if (form === "scientific" || (form === "auto" && (leading <= -7 || leading >= 21))) {
    const rest = digits.slice(1);
    return `${sign}${digits[0]}${rest ? "." + rest : ""}e${leading}`;
  }
  if (e >= 0) return sign + digits + "0".repeat(e);
  const point = digits.length + e; // digits before the point
  if (point > 0) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${sign}0.${"0".repeat(-point)}${digits}`;
}

/**
 * A short form for display, such as "1.33e50", "2048" or "0.125".
 * @param {*} value - a decimal.
 * @param {number} [significant=3] - the digits kept in the scientific form.
 * @returns {string} plain (up to 6 significant digits) when 1e-3 ≤ |value| < 1e6, else rounded to
 *   `significant` digits in scientific form; trailing zeros trimmed.
 */
export function formatShort(value, significant = 3) {
  const x = parseDecimal(value);
  if (x.m === 0n) return "0";
  const plainDigits = 6;
  const lead = leadingExponent(x);
  if (lead >= -3 && lead <= 5) {
    const rounded = roundDecimal(x, lead - plainDigits + 1);
    if (leadingExponent(rounded) <= 5) return formatDecimal(rounded);
  }
  const rounded = roundDecimal(x, lead - significant + 1);
  return formatDecimal(rounded, "scientific");
}

// MARK: - Arithmetic

/** The sum of two decimals, exact. */
export function add(a, b) {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  const e = Math.min(x.e, y.e);
  return normalize(x.m * pow10(x.e - e) + y.m * pow10(y.e - e), e);
}

/** The product of two decimals, exact. */
export function multiply(a, b) {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  return normalize(x.m * y.m, x.e + y.e);
}

/**
 * A decimal times a fraction p/q, rounded to `digits` digits after the point (ties to even).
 * @param {*} a - a decimal.
 * @param {number|bigint} p - a whole numerator.
 * @param {number|bigint} q - a whole denominator, not 0 (traps with a RangeError).
 * @param {number} digits - digits kept after the point (negative: rounds to tens, hundreds, …).
 */
export function multiplyByFraction(a, p, q, digits) {
  const x = parseDecimal(a);
  return roundRational(multiplyRational(toRational(x), rational(BigInt(p), BigInt(q))), -digits);
}

/**
 * a/b rounded to `digits` digits after the point, ties to even.
 * @throws {RangeError} when b is 0.
 */
export function divide(a, b, digits) {
  return roundRational(divideRational(toRational(parseDecimal(a)), toRational(parseDecimal(b))), -digits);
}

/** -1, 0 or 1 as a < b, a = b or a > b. */
export function compare(a, b) {
  const difference = add(a, negate(parseDecimal(b))).m;
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

// MARK: - The view's geometry

/**
 * How many digits after the point a centre needs at this zoom so that rounding it moves it by less
 * than 1/10,000 of a pixel: 5 + ⌈log10(zoom·minSide/3)⌉, computed exactly (the smallest k with
 * 10^k ≥ zoom·minSide/3, plus 5). A rounded centre is then within 0.5·10^-5 pixel of the exact one.
 * @param {*} zoom - a decimal > 0.
 * @param {number} minSide - the picture's shorter side in pixels, ≥ 1.
 */
export function centreDigits(zoom, minSide) {
  const z = positiveZoom(zoom);
  const product = z.m * BigInt(checkSide(minSide)); // zoom·minSide = product·10^z.e
  // The smallest j ≥ 0 with 3·10^j ≥ product (product ≥ 1, so j = -1 never suffices).
  let j = Math.max(0, product.toString().length - 2);
  while (3n * pow10(j) < product) j += 1;
  return z.e + j + 5;
}

/**
 * The distance between neighbouring pixels' samples, 3/(zoom·minSide).
 * @param {*} zoom - a decimal > 0.
 * @param {number} minSide - the picture's shorter side in pixels.
 * @param {number} [significant=20] - significant digits of the result (ties to even).
 * @returns {string} in `formatDecimal`'s auto form, such as "0.00375" (zoom 1, 800 pixels) or
 *   "3.75e-53" (zoom 1e50).
 */
export function pixelStep(zoom, minSide, significant = 20) {
  const s = stepRational(positiveZoom(zoom), checkSide(minSide));
  return formatDecimal(roundRational(s, floorLog10(s) - significant + 1), "auto");
}

/**
 * The zoom times `factor`, exact.
 * @param {*} zoom - a decimal > 0.
 * @param {*} factor - 2 or 1/2 (as 2, 0.5, "2", "0.5" or "1/2"); any other decimal > 0 works too.
 * @returns {string} the zoom in `formatDecimal`'s auto form: zoomBy("1.333e1086", 2) is "2.666e1086",
 *   zoomBy("1", 0.5) is "0.5".
 */
export function zoomBy(zoom, factor) {
  const f = factor === "1/2" ? parseDecimal("0.5") : parseDecimal(factor);
  if (f.m <= 0n) throw new RangeError(`a zoom factor must be greater than 0 (got ${formatDecimal(f)})`);
  return formatDecimal(multiply(positiveZoom(zoom), f), "auto");
}

/**
 * The centre of a picture after its centre moves by (dx, dy) pixels in its own pixel grid.
 *
 * re' = re + dx·s, im' = im − dy·s (y grows downward), s = 3/(zoom·min(W, H)), each part rounded to
 * `centreDigits(zoom, min(W, H))` digits after the point (ties to even). A part that moves by 0 keeps
 * its digits as given, so that an unmoved view's centre is exactly the one it was opened with.
 * @param {string} centre - "RE,IM", two decimals.
 * @param {*} zoom - a decimal > 0.
 * @param {string|number[]} size - "WxH" or [W, H].
 * @param {*} dx - a decimal (halves are exact; may be negative).
 * @param {*} dy - a decimal.
 * @returns {string} "RE,IM", plain decimals.
 */
export function centreAfterPan(centre, zoom, size, dx, dy) {
  const [re, im] = parseComplex(centre);
  const z = positiveZoom(zoom);
  const minSide = Math.min(...parseSize(size));
  const step = stepRational(z, minSide);
  const digits = centreDigits(z, minSide);
  const moveX = parseDecimal(dx);
  const moveY = parseDecimal(dy);
  const part = (value, move) =>
    move.m === 0n
      ? formatDecimal(value)
      : formatDecimal(roundRational(addRational(toRational(value), multiplyRational(toRational(move), step)), -digits));
  return `${part(re, moveX)},${part(im, negate(moveY))}`;
}

/**
 * The view after a zoom by `factor` about a point of the viewport, which stays where it is on screen.
 *
 * The viewport is a window of the picture (centre, zoom, size) whose top-left corner is at `offset` in
 * the picture's pixel grid, and has the picture's size. The point under (x, y) of the viewport, p, is
 * the grid point (offset + (x, y)): p = centre + (ox + x − W/2, −(oy + y − H/2))·s. The new picture has
 * the same size and zoom·factor, and its centre is p + (W/2 − x, −(H/2 − y))·s', rounded to
 * `centreDigits(zoom·factor, min(W, H))` digits after the point (ties to even).
 * @param {string} centre - "RE,IM".
 * @param {*} zoom - a decimal > 0.
 * @param {string|number[]} size - "WxH" or [W, H].
 * @param {*} x - the cursor's x in the viewport, CSS pixels from its left edge (a decimal).
 * @param {*} y - the cursor's y, from the top edge.
 * @param {*} factor - 2 (in) or 1/2 (out); see `zoomBy`.
 * @param {number[]} [offset=[0, 0]] - the viewport's top-left corner in the picture's grid.
 * @returns {{center: string, zoom: string}} the new centre ("RE,IM") and zoom (as `zoomBy` writes it).
 */
export function centreAfterZoom(centre, zoom, size, x, y, factor, offset = [0, 0]) {
  const [re, im] = parseComplex(centre);
  const z = positiveZoom(zoom);
  const [width, height] = parseSize(size);
  const minSide = Math.min(width, height);
  const newZoom = zoomBy(z, factor);
  const oldStep = stepRational(z, minSide);
  const newStep = stepRational(parseDecimal(newZoom), minSide);
  const digits = centreDigits(newZoom, minSide);
  const cx = parseDecimal(x);
  const cy = parseDecimal(y);
  const half = (side) => toRational(multiply(side, "0.5"));
  // Pixel distances, exact: from the picture's centre to the cursor, and from the cursor to the viewport's centre.
  const toCursorX = subtractRational(toRational(add(offset[0], cx)), half(width));
  const toCursorY = subtractRational(toRational(add(offset[1], cy)), half(height));
  const toMiddleX = subtractRational(half(width), toRational(cx));
  const toMiddleY = subtractRational(half(height), toRational(cy));
  const newRe = addRational(
    addRational(toRational(re), multiplyRational(toCursorX, oldStep)),
    multiplyRational(toMiddleX, newStep));
  const newIm = subtractRational(
    subtractRational(toRational(im), multiplyRational(toCursorY, oldStep)),
    multiplyRational(toMiddleY, newStep));
  return {
    center: `${formatDecimal(roundRational(newRe, -digits))},${formatDecimal(roundRational(newIm, -digits))}`,
    zoom: newZoom,
  };
}

/**
 * Where one picture's pixel grid lies in another's: for the page's placeholders (CSS pixels, Doubles).
 *
 * Grid point (X, Y) of `from` is the same complex number as grid point (scale·X + x, scale·Y + y) of
 * `to`. The arithmetic is exact; only the three results are rounded to Doubles (±Infinity when far
 * beyond a Double's range).
 * @param {{center: string, zoom: *, size: string|number[]}} from
 * @param {{center: string, zoom: *, size: string|number[]}} to
 * @returns {{scale: number, x: number, y: number}}
 */
export function relativePlacement(from, to) {
  const [re0, im0] = parseComplex(from.center);
  const [re1, im1] = parseComplex(to.center);
  const [w0, h0] = parseSize(from.size);
  const [w1, h1] = parseSize(to.size);
  const s0 = stepRational(positiveZoom(from.zoom), Math.min(w0, h0));
  const s1 = stepRational(positiveZoom(to.zoom), Math.min(w1, h1));
  const scale = divideRational(s0, s1);
  // X' = scale·X + (re0 − re1)/s1 − scale·w0/2 + w1/2, and Y' = scale·Y − (im0 − im1)/s1 − scale·h0/2 + h1/2.
  const x = addRational(
    subtractRational(
      divideRational(subtractRational(toRational(re0), toRational(re1)), s1),
      multiplyRational(scale, rational(BigInt(w0), 2n))),
    rational(BigInt(w1), 2n));
  const y = addRational(
    subtractRational(
      divideRational(subtractRational(toRational(im1), toRational(im0)), s1),
      multiplyRational(scale, rational(BigInt(h0), 2n))),
    rational(BigInt(h1), 2n));
  return { scale: rationalToNumber(scale), x: rationalToNumber(x), y: rationalToNumber(y) };
}

/**
 * Reads "RE,IM".
 * @returns {Array<{m: bigint, e: number}>} the two parts.
 * @throws {SyntaxError} unless it is two decimals separated by a comma.
 */
export function parseComplex(text) {
  const parts = String(text).split(",");
  if (parts.length !== 2) throw new SyntaxError(`'${text}' is not re,im: give two decimal numbers such as -0.5,0`);
  return parts.map(parseDecimal);
}

/**
 * Reads "WxH" (or "N", or [W, H]): whole sides from 1.
 * @returns {number[]} [W, H].
 * @throws {SyntaxError} otherwise.
 */
export function parseSize(size) {
  const sides = Array.isArray(size) ? size.map(Number) : String(size).trim().split(/[xX]/).map((t) => Number(t));
  if (sides.length === 1) sides.push(sides[0]);
  if (sides.length !== 2 || !sides.every((side) => Number.isSafeInteger(side) && side >= 1)) {
    throw new SyntaxError(`'${size}' is not a size: give WxH such as 1280x800`);
  }
  return sides;
}

// MARK: - Internals

function normalize(m, e) {
  if (m === 0n) return { m: 0n, e: 0 };
  // Strip trailing zeros 16 at a time first: a zoom such as 1e1000 may arrive as 1 followed by zeros.
  const chunk = 10n ** 16n;
  while (m % chunk === 0n) {
    m /= chunk;
    e += 16;
  }
  while (m % TEN === 0n) {
    m /= TEN;
    e += 1;
  }
  return { m, e };
}

function negate(x) {
  return { m: -x.m, e: x.e };
}

const powers = new Map();
function pow10(k) {
  if (k < 64) return TEN ** BigInt(k);
  let power = powers.get(k);
  if (power === undefined) {
    power = TEN ** BigInt(k);
    if (powers.size > 64) powers.clear();
    powers.set(k, power);
  }
  return power;
}

function leadingExponent(x) {
  return (x.m < 0n ? -x.m : x.m).toString().length - 1 + x.e;
}

function positiveZoom(zoom) {
  const z = parseDecimal(zoom);
  if (z.m <= 0n) throw new RangeError(`a zoom must be greater than 0 (got ${formatDecimal(z)})`);
  return z;
}

function checkSide(side) {
  if (!Number.isSafeInteger(side) || side < 1) throw new RangeError(`a side must be a whole number ≥ 1 (got ${side})`);
  return side;
}

function rational(n, d) {
  if (d === 0n) throw new RangeError("division by zero");
  return d < 0n ? { n: -n, d: -d } : { n, d };
}

function toRational(x) {
  return x.e >= 0 ? { n: x.m * pow10(x.e), d: 1n } : { n: x.m, d: pow10(-x.e) };
}

function addRational(a, b) {
  return a.d === b.d ? { n: a.n + b.n, d: a.d } : { n: a.n * b.d + b.n * a.d, d: a.d * b.d };
}

function subtractRational(a, b) {
  return addRational(a, { n: -b.n, d: b.d });
}

function multiplyRational(a, b) {
  return { n: a.n * b.n, d: a.d * b.d };
}

function divideRational(a, b) {
  return rational(a.n * b.d, a.d * b.n);
}

// 3/(zoom·minSide) with zoom = m·10^e.
function stepRational(zoom, minSide) {
  const denominator = zoom.m * BigInt(minSide);
  return zoom.e >= 0 ? { n: 3n, d: denominator * pow10(zoom.e) } : { n: 3n * pow10(-zoom.e), d: denominator };
}

// The quotient n/d rounded to the nearest whole number, ties to even.
function divideRoundingToEven(n, d) {
  let q = n / d; // truncated toward zero
  const r = n % d; // the sign of n
  const twice = 2n * (r < 0n ? -r : r);
  if (twice > d || (twice === d && q % 2n !== 0n)) q += n < 0n ? -1n : 1n;
  return q;
}

// The rational r rounded to a multiple of 10^exponent, as a decimal.
function roundRational(r, exponent) {
  const q = exponent <= 0 ? divideRoundingToEven(r.n * pow10(-exponent), r.d) : divideRoundingToEven(r.n, r.d * pow10(exponent));
  return normalize(q, exponent);
}

function roundDecimal(x, exponent) {
  return x.e >= exponent ? x : roundRational(toRational(x), exponent);
}

// ⌊log10 r⌋ for a rational r > 0, exactly.
function floorLog10(r) {
  const atLeast = (k) => (k >= 0 ? r.n >= r.d * pow10(k) : r.n * pow10(-k) >= r.d); // r ≥ 10^k
  let k = r.n.toString().length - r.d.toString().length;
  while (!atLeast(k)) k -= 1;
  while (atLeast(k + 1)) k += 1;
  return k;
}

function bitLength(n) {
  return n === 0n ? 0 : n.toString(16).length * 4;
}

// The Double nearest r (within a few units in the last place), ±Infinity or 0 beyond range.
function rationalToNumber(r) {
  if (r.n === 0n) return 0;
  const negative = r.n < 0n;
  const n = negative ? -r.n : r.n;
  const shift = 64 - (bitLength(n) - bitLength(r.d)); // scale the quotient to about 2^64
  const q = shift >= 0 ? (n << BigInt(shift)) / r.d : n / (r.d << BigInt(-shift));
  const half = Math.trunc(shift / 2); // two factors, so that 2^-shift itself need not be a Double
  const value = Number(q) * 2 ** -half * 2 ** (half - shift);
  return negative ? -value : value;
}
