"""FractalNow 0.8.2 (Debian's `fractalnow`), the second peer of Benchmarks/deep-zoom/run: its
multiple-precision mode, every pixel iterated in GNU MPFR (no perturbation, no approximation).

Its command line renders a configuration file to a PPM: `fractalnow -c FILE -x W -y H -l mp -L BITS
-i 1 -j 2 -o OUT`. `-l mp` is the multiple-precision mode; `-L` its bits; `-i 1` computes every
pixel (its default, 5, interpolates the colours of quadrilaterals whose corners look alike: a guess,
not a count); `-j 2` uses both processors (its default is 4 threads).

The view. FractalNow samples pixel (x, y) at `re = cx − spanX/2 + (x + 0.5)·spanX/W`,
`im = cy − spanY/2 + (y + 0.5)·spanY/H` (lib/src/fractal_compute_engine.c), so with
spanX = W·s and spanY = H·s, s = 3 / (zoom·min(W, H)), it samples mandel's points, its rows in the
opposite order (its row y is mandel's row H − 1 − y). It reads the centre and spans in MPFR at `-L`
bits, set before the file is read.

The counts. FractalNow writes colours only; this configuration makes them recoverable: the discrete
iteration count n (its loop stops at the first n with |z_n|² ≥ 4, mandel's |z| > 2 but for |z| = 2
exactly), an identity transfer, a 200,000-entry grey ramp from the gradient's two stops (16 bits a
component) and a multiplier that sends n to entry 4n (mod 200,000): 65535·i // 199999 is distinct
for each i = 4n, so the red component gives n mod 50,000. Points that never escape get the space
colour, pure red, which no grey matches: they read as the iteration limit.
"""
import math
import os
import shutil
import subprocess
import sys
import time
from decimal import Decimal, getcontext

import numpy

# The gradient FractalNow builds from a file has 200,000 entries (DEFAULT_GRADIENT_SIZE).
GRADIENT_SIZE = 200000
STEP = 4
PERIOD = GRADIENT_SIZE // STEP
RED_FOR_ENTRY = {65535 * i // (GRADIENT_SIZE - 1): i // STEP for i in range(0, GRADIENT_SIZE, STEP)}


def program():
    """The path of fractalnow, installing Debian's package if it is missing and we are root."""
    found = shutil.which("fractalnow")
    if found:
        return found
    if os.geteuid() != 0:
        sys.exit("run: FractalNow is missing: apt-get install fractalnow (Debian 12 has 0.8.2)")
    print("run: installing Debian's fractalnow", file=sys.stderr)
    subprocess.run(["apt-get", "install", "-y", "-qq", "fractalnow"], check=True, stdout=subprocess.DEVNULL)
    return shutil.which("fractalnow")


def bits(zoom, size):
    """The oracle's precision: the pixel spacing's bits and 128 more."""
    getcontext().prec = 40
    return int(math.floor(Decimal(zoom).ln() / Decimal(2).ln()) + math.log2(size)) + 128


def configuration(row, iterations):
    """The configuration file's text: mandel's view (spans 3/zoom for a square picture), bailout 2."""
    getcontext().prec = 80
    span = Decimal(3) / Decimal(row["mandel_zoom"])
    return "\n".join([
        "c075", "mandelbrot", f"{row['re']} {row['im']} {span:.70e} {span:.70e}", f"2 {iterations}",
        "2", "0xFFFF00000000", "iterationcount", "discrete", "identity",
        # multiplier · 200,000 = 4 and offset · 200,000 = 0.5: entry 4n, safe from rounding down.
        f"{STEP / GRADIENT_SIZE!r} {0.5 / GRADIENT_SIZE!r}", "0 0x0 1 0xFFFFFFFFFFFF", ""])


def counts_from_ppm(path, iterations):
    """The counts (mod 50,000) in mandel's row order, from FractalNow's 16-bit PPM."""
    with open(path, "rb") as file:
        magic, dimensions, maximum, pixels = file.read().split(b"\n", 3)
    width, height = map(int, dimensions.split())
    if magic != b"P6" or maximum != b"65535":
        sys.exit(f"run: FractalNow wrote an unexpected picture ({magic!r}, maximum {maximum!r})")
    image = numpy.frombuffer(pixels, dtype=">u2").reshape(height, width, 3)
    counts = numpy.zeros((height, width), dtype=numpy.int64)
    for y in range(height):
        for x in range(width):
            red, green, blue = (int(v) for v in image[y, x])
            if (red, green, blue) == (65535, 0, 0):
                counts[y, x] = iterations
            elif red == green == blue and red in RED_FOR_ENTRY:
                counts[y, x] = RED_FOR_ENTRY[red]
            else:
                sys.exit(f"run: FractalNow's pixel ({x}, {y}) is no colour of the ramp: {red, green, blue}")
    return counts[::-1]


def render(fractalnow, row, size, folder):
    """One whole process at size×size; returns its wall seconds and the counts (mod 50,000)."""
    iterations = int(row["iterations"])
    config, picture = os.path.join(folder, "fractalnow.config"), os.path.join(folder, "fractalnow.ppm")
    with open(config, "w") as file:
        file.write(configuration(row, iterations))
    command = [fractalnow, "-q", "-c", config, "-x", str(size), "-y", str(size), "-l", "mp",
               "-L", str(bits(row["mandel_zoom"], size)), "-i", "1", "-j", "2", "-o", picture]
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"run: fractalnow failed ({result.returncode}): {result.stderr.strip()}")
    return seconds, counts_from_ppm(picture, iterations)
