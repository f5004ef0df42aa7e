/* ../shared/tools/peak.c for processors without 512-bit vectors: the same probe (lane-
 * iterations per second of z = z^2 + c, no escape tests, K independent vectors per
 * thread) with 256-bit AVX vectors of four lanes. peak.c's K = 6 vectors of eight are 24
 * registers' worth of z alone, which 16 AVX registers cannot hold; scripts/peak-ratio
 * builds this file for K = 3 ... 8 and keeps the fastest, so that the ceiling is this
 * processor's and not a spilled one.
 * Build: gcc -O3 -march=native -ffp-contract=off -fopenmp -DK=6 peak256.c -o peak256 */
#include <immintrin.h>
#include <stdio.h>
#include <omp.h>
#ifndef K
#define K 6
#endif
int main(void) {
    const long steps = 400000000L;
    double t0 = omp_get_wtime();
    double sink = 0;
    int nt = 1;
    #pragma omp parallel reduction(+:sink)
    {
        nt = omp_get_num_threads();
        __m256d zr[K], zi[K], cr[K], ci[K];
        for (int k = 0; k < K; k++) {
            cr[k] = _mm256_set1_pd(-0.1 - 0.01 * k); ci[k] = _mm256_set1_pd(0.1);
            zr[k] = _mm256_setzero_pd(); zi[k] = _mm256_setzero_pd();
        }
        for (long s = 0; s < steps / K; s++) {
            for (int k = 0; k < K; k++) {
                __m256d zr2 = _mm256_mul_pd(zr[k], zr[k]);
                __m256d zi2 = _mm256_mul_pd(zi[k], zi[k]);
                __m256d zri = _mm256_mul_pd(zr[k], zi[k]);
                zi[k] = _mm256_add_pd(_mm256_add_pd(zri, zri), ci[k]);
                zr[k] = _mm256_add_pd(_mm256_sub_pd(zr2, zi2), cr[k]);
            }
        }
        for (int k = 0; k < K; k++) {
            double lanes[4];
            _mm256_storeu_pd(lanes, zr[k]);
            sink += lanes[0] + lanes[1] + lanes[2] + lanes[3];
        }
    }
    double t = omp_get_wtime() - t0;
    double iters = (double)(steps / K) * K * 4 * nt;
    printf("threads %d  %.2f G lane-iterations/s  (%.2f per thread)  sink %g  (256-bit, K = %d)\n",
           nt, iters / t / 1e9, iters / t / 1e9 / nt, sink, K);
    return 0;
}
