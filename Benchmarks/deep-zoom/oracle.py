"""The escape counts of chosen pixels of a deep view, each pixel iterated on its own in MPFR (gmpy2):
no perturbation, no approximation, the bailout |z| > 2 as mandel's. A check independent of mandel's code.

    python oracle.py RE IM ZOOM ITERATIONS SIZE X,Y ...   prints one count a line, in the order given
"""
import math
import sys
from multiprocessing import Pool

import gmpy2
from gmpy2 import mpfr


def count(arguments):
    re, im, zoom, limit, size, x, y = arguments
    # Bits for the pixel spacing relative to the centre, and 128 more.
    exponent = -math.floor(float(gmpy2.log2(mpfr(zoom, 64))))
    bits = int(-exponent + math.log2(size)) + 128
    with gmpy2.context(gmpy2.get_context(), precision=bits):
        spacing = mpfr(3) / (mpfr(zoom) * size)
        cr = mpfr(re) + (2 * x + 1 - size) * spacing / 2
        ci = mpfr(im) - (2 * y + 1 - size) * spacing / 2
        zr = mpfr(0)
        zi = mpfr(0)
        for n in range(limit):
            zr2 = zr * zr
            zi2 = zi * zi
            if zr2 + zi2 > 4:
                return n
            zi = 2 * zr * zi + ci
            zr = zr2 - zi2 + cr
        return limit


def main():
    re, im, zoom, limit, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    pixels = [tuple(int(v) for v in pixel.split(",")) for pixel in sys.argv[6:]]
    with Pool() as pool:
        for value in pool.map(count, [(re, im, zoom, limit, size, x, y) for x, y in pixels]):
            print(value)


if __name__ == "__main__":
    main()
