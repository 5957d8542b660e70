/* chipperf cpu toolkit, main_memory-bandwidth: STREAM's triad a[i] = b[i] + s * c[i] over
 * three arrays of doubles, parallel with OpenMP (each thread first touches its own part, so
 * its pages sit on its memory node). STREAM's counting: 3 x 8 bytes moved per element (two
 * reads, one write); GB = 1e9 bytes. Triads repeat until min_time_s has passed; the figure
 * is the bytes over that wall-clock window. The arrays' final values are checked.
 *
 *     triad <min_time_s> [elements]     (default 2^24 per array: 3 x 128 MiB)
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    double min_time = argc > 1 ? atof(argv[1]) : 1.0;
    long n = argc > 2 ? atol(argv[2]) : 1L << 24;
    if (n <= 0 || min_time <= 0) {
        fprintf(stderr, "usage: triad <min_time_s > 0> [elements > 0]\n");
        return 2;
    }
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    double *c = malloc(sizeof(double) * n);
    if (!a || !b || !c) {
        fprintf(stderr, "cannot allocate three arrays of %ld doubles\n", n);
        return 1;
    }
    const double s = 3.0;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = 1.0;
        c[i] = 2.0;
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)           /* warm-up */
        a[i] = b[i] + s * c[i];
    long iterations = 0;
    double start = omp_get_wtime(), now = start;
    while (now - start < min_time) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        iterations++;
        now = omp_get_wtime();
    }
    for (long i = 0; i < n; i += n / 97 + 1)
        if (fabs(a[i] - 7.0) > 0.0) {
            fprintf(stderr, "wrong result: a[%ld] = %g, want 7\n", i, a[i]);
            return 1;
        }
    double seconds = now - start, bytes = 3.0 * sizeof(double) * (double)n * iterations;
    printf("triad of %ld doubles per array, %d OpenMP threads, %ld triads in %.3f s\n", n,
           omp_get_max_threads(), iterations, seconds);
    printf("[chipperf toolkit] {\"window_s\": %.6f, \"work_done\": %.0f, \"work_unit\": \"bytes\", "
           "\"iterations\": %ld, \"what\": \"STREAM triad in C, %ld doubles per array, %d OpenMP "
           "threads, 3 x 8 bytes moved per element\"}\n", seconds, bytes, iterations, n,
           omp_get_max_threads());
    printf("[FlagPerf Result]main_memory-bandwidth=%.3fGB/s\n", bytes / seconds / 1e9);
    free(a);
    free(b);
    free(c);
    return 0;
}
