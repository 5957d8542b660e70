"""FlagPerf's operator benchmarks: one operator, one dtype, one provider over a shape set.

    op.py       what an operator is (Op) and the random inputs
    table.py    the operators: inputs per shape, call, FLOPs (OPS, FlagPerf's others included)
    flagperf_ops.py  FlagPerf's other operators (elementwise, comparisons, bitwise, ...)
    check.py    correctness against a float64 CPU reference, per-dtype tolerances
    measure.py  per shape: correctness, latency percentiles, TFLOP/s or GB/s, share of peak

Each ``operation/benchmarks/<op>/pytorch/main.py`` is ``main("<op>")``; the case key's
dtype, spec peak and provider arrive as ``--dtype --spec_tflops --provider``.
"""

from __future__ import annotations

from chipperf_runtime.bench.case import BenchCase, BenchError, contract_parser, run_bench

DTYPES = ("FP64", "FP32", "FP16", "BF16", "INT32", "INT16")
PROVIDERS = ("nativetorch", "flaggems")


def main(name: str) -> None:
    p = contract_parser(f"chipperf operator benchmark {name}")
    p.add_argument("--dtype", default="FP32", help=f"one of {', '.join(DTYPES)}")
    p.add_argument("--provider", default="nativetorch", help=f"one of {', '.join(PROVIDERS)}")
    p.add_argument("--spec_tflops", type=float, default=0.0,
                   help="the chip's spec peak in TFLOP/s for this dtype (the key's number)")
    args = p.parse_args()

    def build() -> BenchCase:
        from chipperf_runtime.operation.table import OPS

        if name not in OPS:
            raise BenchError(f"no operator {name!r}: known operators are {', '.join(OPS)}")
        if args.dtype.upper() not in DTYPES:
            raise BenchError(f"{name}: dtype {args.dtype!r} is not one of {', '.join(DTYPES)}")
        if args.dtype.upper() not in OPS[name].dtypes:
            raise BenchError(f"{name}: dtype {args.dtype.upper()} is not one it takes: use one of "
                             f"{', '.join(OPS[name].dtypes)}")
        if args.provider.lower() not in PROVIDERS:
            raise BenchError(f"{name}: provider {args.provider!r} is not one of "
                             f"{', '.join(PROVIDERS)}")
        return BenchCase("operation", name, args)

    def body(case: BenchCase) -> None:
        from chipperf_runtime.operation.measure import measure

        measure(case, args.dtype.upper(), args.provider.lower(), args.spec_tflops)

    run_bench(build, body)
