// chipperf nvidia toolkit for main_memory-bandwidth: a device-memory copy kernel (16-byte
// loads and stores, grid-stride) from one buffer into another on one GPU. Each copy reads
// and writes the buffer: 2 x bytes moved (the benchmark method's and STREAM copy's
// counting); GB = 1e9 bytes. Copies repeat, timed by CUDA events, until min_time_s has
// passed; the copy is checked once after the window.
//
//     bandwidth <min_time_s> [bytes per buffer, default 1 GiB]
//
// Built by main.sh with nvcc in the nvidia base image: never built or run by chipperf (no
// NVIDIA GPU where chipperf is developed).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                         cudaGetErrorString(err_));                                       \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

__global__ void copy(const int4 *__restrict__ src, int4 *__restrict__ dst, size_t n)
{
    size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (; i < n; i += stride)
        dst[i] = src[i];
}

__global__ void fill(int4 *buffer, size_t n)
{
    size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    for (; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
        buffer[i] = make_int4(static_cast<int>(i), 1, 2, 3);
}

int main(int argc, char **argv)
{
    const double min_time = argc > 1 ? std::atof(argv[1]) : 1.0;
    const size_t bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (1ull << 30);
    if (min_time <= 0 || bytes < 16 || bytes % 16 != 0) {
        std::fprintf(stderr, "usage: bandwidth <min_time_s > 0> [bytes, a multiple of 16]\n");
        return 2;
    }
    const size_t n = bytes / sizeof(int4);
    int4 *src, *dst;
    CHECK_CUDA(cudaMalloc(&src, bytes));
    CHECK_CUDA(cudaMalloc(&dst, bytes));
    cudaDeviceProp prop;
    int device = 0;
    CHECK_CUDA(cudaGetDevice(&device));
    CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
    const int threads = 256, blocks = prop.multiProcessorCount * 8;
    fill<<<blocks, threads>>>(src, n);
    for (int i = 0; i < 5; i++)         // warm-up
        copy<<<blocks, threads>>>(src, dst, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());

    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    long iterations = 0;
    float elapsed_ms = 0.0f;
    CHECK_CUDA(cudaEventRecord(start));
    while (elapsed_ms < min_time * 1e3) {
        for (int i = 0; i < 20; i++)
            copy<<<blocks, threads>>>(src, dst, n);
        iterations += 20;
        CHECK_CUDA(cudaEventRecord(stop));
        CHECK_CUDA(cudaEventSynchronize(stop));
        CHECK_CUDA(cudaEventElapsedTime(&elapsed_ms, start, stop));
    }
    CHECK_CUDA(cudaGetLastError());
    int4 last;
    CHECK_CUDA(cudaMemcpy(&last, dst + (n - 1), sizeof(last), cudaMemcpyDeviceToHost));
    if (last.x != static_cast<int>(n - 1) || last.y != 1 || last.w != 3) {
        std::fprintf(stderr, "wrong result: the last element was not copied\n");
        return 1;
    }
    const double seconds = elapsed_ms / 1e3;
    const double moved = 2.0 * static_cast<double>(bytes) * iterations;
    std::printf("%s: copy kernel, %zu bytes per buffer, %d x %d threads, %ld copies in %.3f s\n",
                prop.name, bytes, blocks, threads, iterations, seconds);
    std::printf("[chipperf toolkit] {\"window_s\": %.6f, \"work_done\": %.0f, \"work_unit\": \"bytes\", "
                "\"iterations\": %ld, \"what\": \"device copy kernel on %s, %zu bytes per buffer, "
                "2 x bytes moved per copy, CUDA events around the loop\"}\n",
                seconds, moved, iterations, prop.name, bytes);
    std::printf("[FlagPerf Result]main_memory-bandwidth=%.3fGB/s\n", moved / seconds / 1e9);
    cudaFree(src);
    cudaFree(dst);
    return 0;
}
