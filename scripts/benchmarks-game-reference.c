/* A plain transcription of the Benchmarks Game "mandelbrot" task, for checking
 * `mandel render --preset benchmarks-game --format pbm` byte for byte.
 * Build with -ffp-contract=off: with fused multiply-add, one pixel at N = 16000
 * comes out differently. Usage: benchmarks-game-reference N > out.pbm */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200;
    printf("P4\n%d %d\n", n, n);
    int bytes_per_row = (n + 7) / 8;
    unsigned char *row = malloc((size_t)bytes_per_row);
    for (int y = 0; y < n; y++) {
        double ci = 2.0 * y / n - 1.0;
        for (int b = 0; b < bytes_per_row; b++) row[b] = 0;
        for (int x = 0; x < n; x++) {
            double cr = 2.0 * x / n - 1.5;
            double zr = 0, zi = 0, tr = 0, ti = 0;
            for (int i = 0; i < 50 && tr + ti <= 4.0; i++) {
                zi = 2.0 * zr * zi + ci;
                zr = tr - ti + cr;
                tr = zr * zr;
                ti = zi * zi;
            }
            if (tr + ti <= 4.0) row[x / 8] |= (unsigned char)(0x80 >> (x % 8));
        }
        fwrite(row, 1, (size_t)bytes_per_row, stdout);
    }
    free(row);
    return 0;
}
