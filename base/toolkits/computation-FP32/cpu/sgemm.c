/* chipperf cpu toolkit, computation-FP32: C = A x B in single precision, a cache-blocked
 * loop nest parallel over row blocks with OpenMP (the inner loop is left to the compiler's
 * vectoriser). 2*N^3 FLOPs per GEMM; GEMMs are repeated until min_time_s has passed, and
 * the figure is the FLOPs over that wall-clock window. Checked against a plain dot product
 * on sampled entries before anything is printed.
 *
 *     sgemm <min_time_s> [N]          (N: the square size, default 1024, a multiple of 64)
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { MB = 64, KB = 256, NB = 256 };

static void gemm(int n, const float *a, const float *b, float *c)
{
#pragma omp parallel for schedule(static)
    for (int ii = 0; ii < n; ii += MB) {
        for (int i = ii; i < ii + MB; i++)
            for (int j = 0; j < n; j++)
                c[(size_t)i * n + j] = 0.0f;
        for (int kk = 0; kk < n; kk += KB) {
            int kend = kk + KB < n ? kk + KB : n;
            for (int jj = 0; jj < n; jj += NB) {
                int jend = jj + NB < n ? jj + NB : n;
                for (int i = ii; i < ii + MB; i++) {
                    float *ci = c + (size_t)i * n;
                    for (int k = kk; k < kend; k++) {
                        const float aik = a[(size_t)i * n + k];
                        const float *bk = b + (size_t)k * n;
                        for (int j = jj; j < jend; j++)
                            ci[j] += aik * bk[j];
                    }
                }
            }
        }
    }
}

static int check(int n, const float *a, const float *b, const float *c)
{
    for (int s = 0; s < 16; s++) {
        int i = (s * 7919) % n, j = (s * 104729) % n;
        double want = 0.0;
        for (int k = 0; k < n; k++)
            want += (double)a[(size_t)i * n + k] * b[(size_t)k * n + j];
        if (fabs(c[(size_t)i * n + j] - want) > 1e-3 * (fabs(want) + 1.0)) {
            fprintf(stderr, "wrong result: C[%d][%d] = %g, want %g\n", i, j,
                    c[(size_t)i * n + j], want);
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    double min_time = argc > 1 ? atof(argv[1]) : 1.0;
    int n = argc > 2 ? atoi(argv[2]) : 1024;
    if (n <= 0 || n % MB != 0 || min_time <= 0) {
        fprintf(stderr, "usage: sgemm <min_time_s > 0> [N, a multiple of %d]\n", MB);
        return 2;
    }
    float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n);
    float *c = malloc(sizeof(float) * n * n);
    if (!a || !b || !c) {
        fprintf(stderr, "cannot allocate three %dx%d matrices\n", n, n);
        return 1;
    }
    for (size_t x = 0; x < (size_t)n * n; x++) {
        a[x] = (float)((x * 37) % 101) / 101.0f - 0.5f;
        b[x] = (float)((x * 53) % 97) / 97.0f - 0.5f;
    }
    gemm(n, a, b, c);                     /* warm-up, and the result checked */
    if (!check(n, a, b, c))
        return 1;
    long iterations = 0;
    double start = omp_get_wtime(), now = start;
    while (now - start < min_time) {
        gemm(n, a, b, c);
        iterations++;
        now = omp_get_wtime();
    }
    double seconds = now - start, flops = 2.0 * n * n * (double)n * iterations;
    printf("sgemm %dx%dx%d, %d OpenMP threads, %ld GEMMs in %.3f s\n", n, n, n,
           omp_get_max_threads(), iterations, seconds);
    printf("[chipperf toolkit] {\"window_s\": %.6f, \"work_done\": %.0f, \"work_unit\": \"FLOP\", "
           "\"iterations\": %ld, \"what\": \"blocked C SGEMM %dx%dx%d on %d OpenMP threads, "
           "2*N^3 FLOPs per GEMM\"}\n", seconds, flops, iterations, n, n, n, omp_get_max_threads());
    printf("[FlagPerf Result]computation-FP32=%.6fTFLOPS\n", flops / seconds / 1e12);
    free(a);
    free(b);
    free(c);
    return 0;
}
