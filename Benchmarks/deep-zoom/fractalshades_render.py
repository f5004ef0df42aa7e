"""Renders deep-zoom locations with Fractalshades 1.2.1, the peer of Benchmarks/deep-zoom/run.

A server on stdin/stdout, so that the benchmark can interleave its renders with mandel's in one
process that keeps numba's compiled code: each line in is a JSON request
{"re", "im", "zoom", "iterations", "size", "png", "counts", "bla_eps", "newton"}; each line out is
{"seconds": wall time from the zoom to the PNG written, "counts": path of the escape counts (.npy)}.
The first request of a location also compiles; the benchmark discards it.
"""
import json
import os
import shutil
import sys
import tempfile
import time

import mpmath
import numpy as np

import fractalshades as fs
import fractalshades.colors as fscolors
import fractalshades.models as fsm
from fractalshades.postproc import Continuous_iter_pp, Fractal_array, Postproc_batch


def render(fractal, request, directory):
    digits = max(len(request["re"]), len(request["im"])) + 10
    mpmath.mp.dps = digits
    size = request["size"]
    start = time.perf_counter()
    # A new picture: nothing of the last render is reused but the object, whose caches hold numba's
    # compiled closures. Its arrays and reference orbit are kept in the directory, a new one each
    # time, and the orbit also in two attributes (which its own clean_up forgets in part).
    fractal.directory = directory
    for cached in ("_FP_params", "_Zn_path"):
        fractal.__dict__.pop(cached, None)
    # Fractalshades' default moves the reference to a nucleus it finds by the ball method and Newton's
    # iterations, in Python and MPFR; no_newton keeps the view's centre, as mandel does.
    fs.settings.no_newton = not request.get("newton", True)
    # Fractalshades puts its first and last samples on the view's edges (spacing dx / (nx − 1)); this
    # dx gives mandel's grid, samples at pixel centres 3 / (zoom · size) apart.
    fractal.zoom(
        precision=digits, x=mpmath.mpf(request["re"]), y=mpmath.mpf(request["im"]),
        dx=mpmath.mpf(3) * (size - 1) / (mpmath.mpf(request["zoom"]) * size), nx=size, xy_ratio=1.0, theta_deg=0.0,
        projection=fs.projection.Cartesian())
    # mandel's bailout (|z| > 2), so that the counts compare; BLA at Fractalshades' default tolerance.
    fractal.calc_std_div(
        calc_name="deep", subset=None, max_iter=request["iterations"], M_divergence=2.0,
        epsilon_stationnary=1e-3, BLA_eps=request.get("bla_eps", 1e-6), interior_detect=False, calc_dzndc=False)
    batch = Postproc_batch(fractal, "deep")
    batch.add_postproc("cont_iter", Continuous_iter_pp())
    plotter = fs.Fractal_plotter(batch)
    plotter.add_layer(fs.colors.layers.Color_layer(
        "cont_iter", func="np.log(x)", colormap=fscolors.cmap_register["classic"], probes_z=[0, 1], output=True))
    plotter.plot()
    seconds = time.perf_counter() - start
    # The counts, chunk by chunk, each chunk's points row by row (as Fractalshades lays them out).
    counts = np.zeros((size, size), dtype=np.uint32)
    array = Fractal_array(fractal, "deep", "stop_iter", func=None)
    for chunk in fractal.chunk_slices():
        (ix, ixx, iy, iyy) = chunk
        counts[iy:iyy, ix:ixx] = np.asarray(array[chunk]).reshape(iyy - iy, ixx - ix)
    pictures = [name for name in os.listdir(directory) if name.endswith(".png")]
    return seconds, counts, [os.path.join(directory, name) for name in pictures]


def main():
    # Fractalshades prints as it goes: its output goes to stderr, the answers alone to stdout.
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    fractal = None
    for line in sys.stdin:
        request = json.loads(line)
        with tempfile.TemporaryDirectory(prefix="fractalshades-") as directory:
            fractal = fractal or fsm.Perturbation_mandelbrot(directory)
            seconds, counts, pictures = render(fractal, request, directory)
            if request.get("counts"):
                np.save(request["counts"], counts)
            if request.get("png") and pictures:
                shutil.copyfile(pictures[0], request["png"])
        print(json.dumps({"seconds": seconds, "counts": request.get("counts")}), file=answers, flush=True)


if __name__ == "__main__":
    main()
