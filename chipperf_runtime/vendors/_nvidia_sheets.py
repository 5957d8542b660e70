"""NVIDIA data-center GPU spec sheets, one per board variant (SXM, PCIe, NVL), dense figures.

NVIDIA's tables mark the tensor-core TF32, BF16, FP16, FP8 and INT8 figures "with sparsity"
(2:4 structured); a dense GEMM reaches half of that, and half is what is written here. FP64
and FP32 figures are dense already. ``peak_flops`` holds the unit a GEMM of that dtype runs
on (FP64: the FP64 tensor cores, which cuBLAS DGEMM uses on A100/H100/H200; FP32 with TF32
off: the CUDA cores); ``vector_flops`` the vector (CUDA-core) figures kept apart. INT8 is
in OP/s. Each figure's source is the sheet named in ``source`` (name + URL), quoted in the
comment beside it as the sheet prints it.

A bare chip name means the board FlagPerf and most clusters use: "A100" and "H100" are the
SXM 80 GB boards, "H200" the SXM board, as before the variants were split.
"""

from __future__ import annotations

from chipperf_runtime.vendors.base import ChipSpec

_T = 1e12

# NVIDIA A100 Tensor Core GPU datasheet (1758950-r4), SXM and PCIe, 40 GB and 80 GB:
# https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf
A100_SOURCE = ("NVIDIA A100 Tensor Core GPU datasheet 1758950-r4, "
               "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
               "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf; dense (sparsity halved)")
# Same compute on every A100 board: FP64 9.7 | FP64 TC 19.5 | FP32 19.5 | TF32 TC 156 (312*)
# | BF16 TC 312 (624*) | FP16 TC 312 (624*) | INT8 TC 624 TOPS (1248*)   (* with sparsity)
A100_FLOPS = {"fp64": 19.5 * _T, "fp32": 19.5 * _T, "tf32": 156 * _T, "bf16": 312 * _T,
              "fp16": 312 * _T, "int8": 624 * _T}
A100_VECTOR = {"fp64": 9.7 * _T, "fp32": 19.5 * _T}
A100_MISSING = {"fp8": "Ampere tensor cores have no FP8: the A100 datasheet lists no FP8 figure"}

# NVIDIA H100 Tensor Core GPU datasheet (H100 SXM and H100 NVL columns):
# https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet
H100_SOURCE = ("NVIDIA H100 Tensor Core GPU datasheet, "
               "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet "
               "(also https://www.nvidia.com/en-us/data-center/h100/); dense (sparsity halved)")
# H100 PCIe: the 2022 edition of the same datasheet (it had an H100 PCIe column; later editions
# replaced it with H100 NVL) and NVIDIA's H100 PCIe product brief PB-11133-001 (v02, Nov 2022).
H100_PCIE_SOURCE = ("NVIDIA H100 Tensor Core GPU datasheet, 2022 edition (H100 PCIe column), "
                    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
                    ", and NVIDIA H100 PCIe product brief PB-11133-001 v02; dense (sparsity halved)")
# NVIDIA H200 Tensor Core GPU datasheet (H200 SXM and H200 NVL columns):
# https://www.nvidia.com/en-us/data-center/h200/
H200_SOURCE = ("NVIDIA H200 Tensor Core GPU datasheet, "
               "https://www.nvidia.com/en-us/data-center/h200/; dense (sparsity halved)")


def _hopper(fp64: float, fp64_tc: float, fp32: float, tf32_sparse: float, fp16_sparse: float,
            fp8_sparse: float, int8_sparse: float) -> tuple[dict[str, float], dict[str, float]]:
    """(peak_flops, vector_flops) from a Hopper sheet's column, in TFLOP/s as printed."""
    return ({"fp64": fp64_tc * _T, "fp32": fp32 * _T, "tf32": tf32_sparse / 2 * _T,
             "bf16": fp16_sparse / 2 * _T, "fp16": fp16_sparse / 2 * _T,
             "fp8": fp8_sparse / 2 * _T, "int8": int8_sparse / 2 * _T},
            {"fp64": fp64 * _T, "fp32": fp32 * _T})


# H100 SXM: FP64 34 | FP64 TC 67 | FP32 67 | TF32 TC 989* | BF16/FP16 TC 1,979* | FP8 TC 3,958*
# | INT8 TC 3,958* TOPS | 80 GB | 3.35 TB/s | up to 700 W
_H100_SXM = _hopper(34, 67, 67, 989, 1979, 3958, 3958)
# H100 PCIe: FP64 26 | FP64 TC 51 | FP32 51 | TF32 TC 756* | BF16/FP16 TC 1,513* | FP8 TC 3,026*
# | INT8 TC 3,026* TOPS | 80 GB | 2 TB/s | 300-350 W
_H100_PCIE = _hopper(26, 51, 51, 756, 1513, 3026, 3026)
# H100 NVL: FP64 30 | FP64 TC 60 | FP32 60 | TF32 TC 835* | BF16/FP16 TC 1,671* | FP8 TC 3,341*
# | INT8 TC 3,341* TOPS | 94 GB | 3.9 TB/s | 350-400 W
_H100_NVL = _hopper(30, 60, 60, 835, 1671, 3341, 3341)
# H200 SXM: as H100 SXM (34 | 67 | 67 | 989* | 1,979* | 3,958* | 3,958*) | 141 GB | 4.8 TB/s
# | up to 700 W
_H200_SXM = _hopper(34, 67, 67, 989, 1979, 3958, 3958)
# H200 NVL: as H100 NVL (30 | 60 | 60 | 835* | 1,671* | 3,341* | 3,341*) | 141 GB | 4.8 TB/s
# | up to 600 W
_H200_NVL = _hopper(30, 60, 60, 835, 1671, 3341, 3341)


# The SXM boards sit on HGX baseboards of 8 GPUs (DGX A100, DGX H100, DGX H200: 8 per node);
# plan refuses a larger nproc. PCIe and NVL cards go in servers of varying size: not checked.
HGX_GPUS = 8


def _per_node(name: str) -> int | None:
    return HGX_GPUS if name.endswith("SXM") else None


def _a100(name: str, memory_gb: int, bandwidth_gbs: float, tdp: float, board: str) -> ChipSpec:
    return ChipSpec(name, dict(A100_FLOPS), memory_bytes=memory_gb * 2**30, tdp_watts=tdp,
                    memory_bandwidth=bandwidth_gbs * 1e9, vector_flops=dict(A100_VECTOR),
                    missing=dict(A100_MISSING), source=f"{A100_SOURCE}; {board}",
                    devices_per_node=_per_node(name))


def _sheet(name: str, flops: tuple[dict[str, float], dict[str, float]], memory: int,
           bandwidth: float, tdp: float, source: str, board: str) -> ChipSpec:
    return ChipSpec(name, flops[0], memory_bytes=memory, tdp_watts=tdp,
                    memory_bandwidth=bandwidth, vector_flops=flops[1],
                    source=f"{source}; {board}", devices_per_node=_per_node(name))


# A100 80 GB SXM4: 2,039 GB/s, 400 W | 80 GB PCIe: 1,935 GB/s, 300 W
# A100 40 GB SXM4: 1,555 GB/s, 400 W | 40 GB PCIe: 1,555 GB/s, 250 W
A100_SXM = _a100("A100_SXM", 80, 2039, 400, "A100 80GB SXM: 2,039 GB/s, 400 W")
A100_PCIE = _a100("A100_PCIe", 80, 1935, 300, "A100 80GB PCIe: 1,935 GB/s, 300 W")
A100_40_SXM = _a100("A100_40_SXM", 40, 1555, 400, "A100 40GB SXM: 1,555 GB/s, 400 W")
A100_40_PCIE = _a100("A100_40_PCIe", 40, 1555, 250, "A100 40GB PCIe: 1,555 GB/s, 250 W")
H100_SXM = _sheet("H100_SXM", _H100_SXM, 80 * 2**30, 3.35e12, 700, H100_SOURCE,
                  "H100 SXM: 80 GB, 3.35 TB/s, up to 700 W")
H100_PCIE = _sheet("H100_PCIe", _H100_PCIE, 80 * 2**30, 2.0e12, 350, H100_PCIE_SOURCE,
                   "H100 PCIe: 80 GB, 2 TB/s, 300-350 W")
H100_NVL = _sheet("H100_NVL", _H100_NVL, 94 * 2**30, 3.9e12, 400, H100_SOURCE,
                  "H100 NVL: 94 GB, 3.9 TB/s, 350-400 W")
H200_SXM = _sheet("H200_SXM", _H200_SXM, 141 * 10**9, 4.8e12, 700, H200_SOURCE,
                  "H200 SXM: 141 GB, 4.8 TB/s, up to 700 W")
H200_NVL = _sheet("H200_NVL", _H200_NVL, 141 * 10**9, 4.8e12, 600, H200_SOURCE,
                  "H200 NVL: 141 GB, 4.8 TB/s, up to 600 W")

# A800 and H800: the export variants FlagPerf's nvidia keys name (its test_conf at 1b5a0303:
# A800x1x8, H800x4x8). NVIDIA's China pages (nvidia.cn/data-center/a800, .../h800) were not
# reachable from this session; the figures below are the base boards' sheets above, with what
# differs as the secondary sources this session read describe it (NVLink only, and FP64 on H800).
# A800 80 GB SXM: the A100 80 GB SXM's compute, memory and power (GA100, 108 SMs at 1410 MHz:
# FP16 tensor 311.9 TFLOP/s dense, https://hmc-tech.com/gpu/nvidia-a800-vs-nvidia-t40 and
# https://huggingface.co/hardware/a800: 80 GB, 400 W), NVLink 400 GB/s (A100: 600 GB/s).
A800_SXM = ChipSpec("A800_SXM", dict(A100_FLOPS), memory_bytes=80 * 2**30, tdp_watts=400,
                    memory_bandwidth=2039e9, vector_flops=dict(A100_VECTOR),
                    missing=dict(A100_MISSING),
                    source=f"{A100_SOURCE}; A800 80GB SXM = A100 80GB SXM compute, 2,039 GB/s, "
                           "400 W, NVLink 400 GB/s (https://huggingface.co/hardware/a800, "
                           "https://hmc-tech.com/gpu/nvidia-a800-vs-nvidia-t40)",
                    devices_per_node=HGX_GPUS)
# H800 SXM: the H100 SXM's GH100 die, tensor-core figures, 80 GB at 3.35 TB/s, 700 W; NVLink
# 400 GB/s (H100: 900 GB/s) and FP64 cut (https://www.philisun.com/technical-analysis/
# nvidia-h800-vs-h100-a-technical-deep-dive-into-politically-defined-ai-chips): FP64 is left out
# (no NVIDIA figure found), FP32 vector kept from the H100 column.
H800_SXM = ChipSpec(
    "H800_SXM", {k: v for k, v in _H100_SXM[0].items() if k != "fp64"}, memory_bytes=80 * 2**30,
    tdp_watts=700, memory_bandwidth=3.35e12, vector_flops={"fp32": _H100_SXM[1]["fp32"]},
    missing={"fp64": "the H800's FP64 is cut below the H100's and NVIDIA's figure was not found"},
    source=f"{H100_SOURCE}; H800 SXM = H100 SXM tensor-core figures, 80 GB, 3.35 TB/s, 700 W, "
           "NVLink 400 GB/s, FP64 cut (https://www.philisun.com/technical-analysis/nvidia-h800-"
           "vs-h100-a-technical-deep-dive-into-politically-defined-ai-chips)",
    devices_per_node=HGX_GPUS)

# Case-key chip name -> sheet. The bare names are the SXM boards (as they were before).
CHIPS = {
    "A100": A100_SXM, "A100_SXM": A100_SXM, "A100_PCIe": A100_PCIE,
    "A100_40_SXM": A100_40_SXM, "A100_40_PCIe": A100_40_PCIE,
    # FlagPerf's Paddle LLM keys (after their layout prefix): DGX A100 boards, SXM4
    # (training/nvidia/llama1_7B-paddle/README.md at FlagPerf 1b5a0303: "NVIDIA DGX A100")
    "A10040G": A100_40_SXM, "A10080G": A100_SXM,
    "H100": H100_SXM, "H100_SXM": H100_SXM, "H100_PCIe": H100_PCIE, "H100_NVL": H100_NVL,
    "H200": H200_SXM, "H200_SXM": H200_SXM, "H200_NVL": H200_NVL,
    "A800": A800_SXM, "A800_SXM": A800_SXM, "H800": H800_SXM, "H800_SXM": H800_SXM,
}
