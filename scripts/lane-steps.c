/* The kernel's own utilisation at the Benchmarks Game workload: of the lane steps the vector
 * kernel executes, the fraction that were useful, for both widths of its vectors (groups of
 * 4 vectors of 4 lanes, AVX2; of 8 lanes, AVX-512).
 *
 * It follows the kernel's schedule (Sources/MandelbrotCore/Internals/VectorRowKernel.swift)
 * rather than timing it: each row is cut into groups of 4 vectors from its first pixel (tiles
 * and segments are whole groups wide), a pixel inside the main cardioid or the period-2 bulb
 * (the kernel's test, its margins included) is not iterated, and a group runs blocks of steps
 * (2 up to step 8, then 4, the last one cut at the limit of 51) while any lane passed the test
 * at the block's last step. Every lane of the group executes every step the group runs.
 *   executed: the group's steps times its 4 x lanes lanes (past the row's end included);
 *   useful:   for each iterated pixel, the tests the reference loop makes: its count n (the
 *             steps that passed) and the one that failed, min(n + 1, 51).
 * The counts are the reference's, in its order of operations, without fused multiply-adds;
 * the last line sums them as the benchmark counts its work (each pixel's count capped at 50,
 * 50 for a pixel not iterated), which must equal mandel's useful iterations at the same N.
 * Build: cc -O2 -ffp-contract=off scripts/lane-steps.c -o lane-steps; usage: lane-steps N */
#include <stdio.h>
#include <stdlib.h>

enum { limit = 51, stepsPerCheck = 4, vectors = 4 };

/* The steps in the block that starts after `done` steps: VectorRowKernel.blockSteps(after:). */
static int block(int done) { return done < 8 ? 2 : stepsPerCheck; }

/* VectorRowKernel.certainlyInside, for one lane. */
static int certainly_inside(double x, double y) {
    double y2 = y * y;
    double shifted = x - 0.25;
    double q = shifted * shifted + y2;
    int cardioid = q * (q + shifted) < 0.25 * y2 - 1e-9;
    double bulb_x = x + 1;
    int bulb = bulb_x * bulb_x + y2 < 0.0625 - 1e-9;
    return cardioid || bulb;
}

/* The count: the steps whose test |z|^2 <= 4 passed, at most `limit`; -1 for a pixel not iterated. */
static int count(double cr, double ci) {
    if (certainly_inside(cr, ci)) return -1;
    double zr = 0, zi = 0;
    int n = 0;
    while (n < limit) {
        double zr2 = zr * zr, zi2 = zi * zi;
        if (!(zr2 + zi2 <= 4)) break;
        double next_zi = (zr + zr) * zi + ci;
        zr = zr2 - zi2 + cr;
        zi = next_zi;
        n++;
    }
    return n;
}

/* The steps a group runs whose longest count among iterated lanes is `longest` (-1: none iterated). */
static int group_steps(int longest) {
    int done = 0;
    // A lane with count n passed the tests of steps 1 ... n: alive after step `done` while n >= done.
    while (done < limit && longest >= done) {
        int steps = block(done);
        done += steps < limit - done ? steps : limit - done;
    }
    return done;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 16000;
    if (n < 1) {
        fprintf(stderr, "usage: lane-steps N\n");
        return 64;
    }
    int *counts = malloc(sizeof(int) * (size_t)n);
    const int widths[2] = {4, 8};
    double executed[2] = {0, 0}, useful = 0, benchmark_work = 0;
    for (int y = 0; y < n; y++) {
        double ci = 2.0 * y / n - 1.0;
        for (int x = 0; x < n; x++) {
            int c = count(2.0 * x / n - 1.5, ci);
            counts[x] = c;
            benchmark_work += c < 0 || c > 50 ? 50 : c;
            if (c >= 0) useful += c + 1 < limit ? c + 1 : limit;
        }
        for (int w = 0; w < 2; w++) {
            int group = vectors * widths[w];
            for (int start = 0; start < n; start += group) {
                int longest = -1;
                for (int x = start; x < start + group && x < n; x++)
                    if (counts[x] > longest) longest = counts[x];
                executed[w] += (double)group_steps(longest) * group;
            }
        }
    }
    printf("N = %d: useful lane steps %.0f (each iterated pixel's tests, min(count + 1, 51))\n", n, useful);
    for (int w = 0; w < 2; w++)
        printf("%d lanes a vector (groups of %d): executed %.0f, useful %.3f\n", widths[w], vectors * widths[w],
               executed[w], useful / executed[w]);
    printf("useful iterations as the benchmark counts them: %.0f\n", benchmark_work);
    free(counts);
    return 0;
}
