// chipperf nvidia toolkit for the computation-<DTYPE> specs: D = A^T x B with cuBLASLt on
// one GPU, M = N = K (default 8192), operands in device memory, filled on the device.
// 2*M*N*K FLOPs (OPs for INT8) per GEMM; GEMMs repeat, timed by CUDA events, until
// min_time_s has passed; the figure is the FLOPs over that window. The "TN" layout (A
// transposed) is the one cuBLASLt takes for every dtype here, INT8 and FP8 included.
//
//     gemm <FP64|FP32|TF32|FP16|BF16|INT8|FP8> <min_time_s> [size]
//
// Built by main.sh with nvcc in the nvidia base image: never built or run by chipperf (no
// NVIDIA GPU where chipperf is developed).
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CHECK_CUDA(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                         cudaGetErrorString(err_));                                       \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)
#define CHECK_LT(call)                                                                    \
    do {                                                                                  \
        cublasStatus_t st_ = (call);                                                      \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                               \
            std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__,      \
                         #call, static_cast<int>(st_));                                   \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

struct Precision {
    const char *name;
    cudaDataType_t ab, cd, scale;
    cublasComputeType_t compute;
    size_t ab_bytes, cd_bytes;
};

static bool lookup(const std::string &name, Precision *p)
{
    static const Precision table[] = {
        {"FP64", CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 8},
        {"FP32", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4},
        {"TF32", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4},
        {"FP16", CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 2},
        {"BF16", CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 2},
        {"INT8", CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 1, 4},
        {"FP8", CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1, 2},
    };
    for (const Precision &row : table) {
        if (name == row.name) {
            *p = row;
            return true;
        }
    }
    return false;
}

// Small integers in every dtype's range: bytes 0x01..0x3f are finite and non-zero in FP8,
// small in INT8, and denormal-free nonsense is fine for the other dtypes' timing; the
// values only have to be finite.
__global__ void fill(unsigned char *bytes, size_t n, size_t element)
{
    size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    for (; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
        bytes[i] = (i % element == element - 1) ? 0x3c : static_cast<unsigned char>(i % 7);
}

int main(int argc, char **argv)
{
    Precision p;
    if (argc < 3 || !lookup(argv[1], &p) || std::atof(argv[2]) <= 0) {
        std::fprintf(stderr, "usage: gemm <FP64|FP32|TF32|FP16|BF16|INT8|FP8> <min_time_s> [size]\n");
        return 2;
    }
    const double min_time = std::atof(argv[2]);
    const int size = argc > 3 ? std::atoi(argv[3]) : 8192;
    if (size <= 0 || size % 16 != 0) {
        std::fprintf(stderr, "size %d: use a multiple of 16\n", size);
        return 2;
    }
    const size_t m = size, n = size, k = size;
    void *a, *b, *d;
    CHECK_CUDA(cudaMalloc(&a, m * k * p.ab_bytes));
    CHECK_CUDA(cudaMalloc(&b, k * n * p.ab_bytes));
    CHECK_CUDA(cudaMalloc(&d, m * n * p.cd_bytes));
    fill<<<1024, 256>>>(static_cast<unsigned char *>(a), m * k * p.ab_bytes, p.ab_bytes);
    fill<<<1024, 256>>>(static_cast<unsigned char *>(b), k * n * p.ab_bytes, p.ab_bytes);
    CHECK_CUDA(cudaGetLastError());

    cublasLtHandle_t lt;
    CHECK_LT(cublasLtCreate(&lt));
    cublasLtMatmulDesc_t op;
    CHECK_LT(cublasLtMatmulDescCreate(&op, p.compute, p.scale));
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof(transa)));
    CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof(transb)));
    cublasLtMatrixLayout_t la, lb, ld;
    CHECK_LT(cublasLtMatrixLayoutCreate(&la, p.ab, k, m, k));   // A^T: k x m, column major
    CHECK_LT(cublasLtMatrixLayoutCreate(&lb, p.ab, k, n, k));
    CHECK_LT(cublasLtMatrixLayoutCreate(&ld, p.cd, m, n, m));

    const size_t workspace_bytes = 64u << 20;
    void *workspace;
    CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));
    cublasLtMatmulPreference_t pref;
    CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &workspace_bytes, sizeof(workspace_bytes)));
    cublasLtMatmulHeuristicResult_t heuristic;
    int found = 0;
    CHECK_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &heuristic, &found));
    if (found == 0) {
        std::fprintf(stderr, "cuBLASLt has no algorithm for a %zux%zux%zu %s GEMM on this GPU\n",
                     m, n, k, p.name);
        return 1;
    }

    double alpha64 = 1.0, beta64 = 0.0;
    float alpha32 = 1.0f, beta32 = 0.0f;
    int alpha_i = 1, beta_i = 0;
    const void *alpha = p.scale == CUDA_R_64F ? static_cast<const void *>(&alpha64)
                        : p.scale == CUDA_R_32I ? static_cast<const void *>(&alpha_i)
                                                : static_cast<const void *>(&alpha32);
    const void *beta = p.scale == CUDA_R_64F ? static_cast<const void *>(&beta64)
                       : p.scale == CUDA_R_32I ? static_cast<const void *>(&beta_i)
                                               : static_cast<const void *>(&beta32);
    auto gemm = [&]() {
        CHECK_LT(cublasLtMatmul(lt, op, alpha, a, la, b, lb, beta, d, ld, d, ld, &heuristic.algo,
                                workspace, workspace_bytes, 0));
    };
    for (int i = 0; i < 10; i++)      // warm-up: clocks up, algorithm loaded
        gemm();
    CHECK_CUDA(cudaDeviceSynchronize());

    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    long iterations = 0;
    float elapsed_ms = 0.0f;
    int batch = 10;
    CHECK_CUDA(cudaEventRecord(start));
    while (elapsed_ms < min_time * 1e3) {
        for (int i = 0; i < batch; i++)
            gemm();
        iterations += batch;
        CHECK_CUDA(cudaEventRecord(stop));
        CHECK_CUDA(cudaEventSynchronize(stop));
        CHECK_CUDA(cudaEventElapsedTime(&elapsed_ms, start, stop));
    }
    const double seconds = elapsed_ms / 1e3;
    const double flops = 2.0 * m * n * k * static_cast<double>(iterations);
    cudaDeviceProp prop;
    int device = 0;
    CHECK_CUDA(cudaGetDevice(&device));
    CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
    std::printf("%s: %s GEMM %zux%zux%zu (A transposed), cuBLASLt, %ld GEMMs in %.3f s\n",
                prop.name, p.name, m, n, k, iterations, seconds);
    std::printf("[chipperf toolkit] {\"window_s\": %.6f, \"work_done\": %.0f, \"work_unit\": \"FLOP\", "
                "\"iterations\": %ld, \"what\": \"cuBLASLt %s GEMM %zux%zux%zu on %s, 2*M*N*K per "
                "GEMM, CUDA events around the loop\"}\n",
                seconds, flops, iterations, p.name, m, n, k, prop.name);
    std::printf("[FlagPerf Result]computation-%s=%.3f%s\n", p.name, flops / seconds / 1e12,
                std::strcmp(p.name, "INT8") == 0 ? "TOPS" : "TFLOPS");

    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(op);
    cublasLtDestroy(lt);
    cudaFree(workspace);
    cudaFree(a);
    cudaFree(b);
    cudaFree(d);
    return 0;
}
