"""FlagPerf's 14 hardware specs, measured on the device layer (chipperf_runtime.device.torch).

    computation-<DTYPE>      gemm.py        dense GEMM throughput per dtype
    main_memory-bandwidth    memory.py      device-to-device copy bandwidth
    main_memory-capacity     memory.py      memory one process can hold
    interconnect-h2d         links.py       host-to-device copy bandwidth
    interconnect-P2P_*       links.py       point-to-point send/recv between two ranks
    interconnect-MPI_*       links.py       all-reduce across ranks (nccl-tests algbw/busbw)

Each ``base/benchmarks/<spec>/pytorch/main.py`` is ``main("<spec>")``; given ``--toolkit_dir``,
it runs the vendor's own program in that folder instead (toolkit.py: FlagPerf's TOOLKIT method).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from chipperf_runtime.base.methods import BENCHMARK, TOOLKIT
from chipperf_runtime.bench.case import BenchCase, BenchError, contract_parser, run_bench

Measure = Callable[[BenchCase], None]


def _registry() -> dict[str, Measure]:
    from chipperf_runtime.base import gemm, links, memory

    specs: dict[str, Measure] = {f"computation-{d}": gemm.measure for d in gemm.DTYPES}
    specs["main_memory-bandwidth"] = memory.bandwidth
    specs["main_memory-capacity"] = memory.capacity
    specs["interconnect-h2d"] = links.host_to_device
    specs["interconnect-P2P_intraserver"] = links.p2p_intraserver
    specs["interconnect-P2P_interserver"] = links.p2p_interserver
    specs["interconnect-MPI_intraserver"] = links.allreduce_intraserver
    specs["interconnect-MPI_interserver"] = links.allreduce_interserver
    return specs


def main(name: str) -> None:
    """Measure spec ``name`` in this process (one rank) and print its PerfLog."""
    parser = contract_parser(f"chipperf base spec {name}")
    parser.add_argument("--toolkit_dir", default="",
                        help="run the vendor's toolkit (main.sh) in this folder, not PyTorch")
    args = parser.parse_args()

    def build() -> BenchCase:
        specs = _registry()
        if name not in specs:
            raise BenchError(f"no base spec {name!r}: known specs are {', '.join(specs)}")
        return BenchCase("base", name, args, method=TOOLKIT if args.toolkit_dir else BENCHMARK)

    if args.toolkit_dir:
        from chipperf_runtime.base import toolkit

        run_bench(build, lambda case: toolkit.measure(case, Path(args.toolkit_dir)))
    run_bench(build, lambda case: _registry()[name](case))
