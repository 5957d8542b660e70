"""base/ GEMM (fp32, fp64) and memory bandwidth beside numpy references measured in the same run.

    python selfbench/base_reference.py [--size N] [--bytes 268435456] [--repeat 3]

Runs base/'s computation-FP32, computation-FP64 and main_memory-bandwidth programs on the
cpu vendor (as a case rank, through their PerfLog), with the sizes of base/'s cpu vendor
config (``--size`` sets M=N=K of both GEMMs instead). A cpu GEMM times numpy's matmul
(OpenBLAS) of the same sizes with as many threads (every usable core) right after its own
window and puts it in FINISHED (``numpy_reference``, ``ratio_to_numpy``): those are printed.
The copy alternates with ``np.copyto`` of the same buffer size here (2 x bytes moved per
copy, base/'s convention). Prints the best of ``repeat`` for each and the ratio
chipperf / numpy of that best round; the target is >= 0.9 (the suite measures the
hardware, not itself, so that an MFU against it stays below 100 %).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

REPO = Path(__file__).resolve().parents[1]


def settings(min_time_s: float, sizes: dict[str, int],
             extra: dict[str, dict] | None = None) -> str:
    """base/'s cpu vendor config with this benchmark's repetitions (and sizes, when given)."""
    config = yaml.safe_load((REPO / "base" / "configs" / "vendor_config" /
                             "cpu_configuration.yaml").read_text())
    config["defaults"] = {"warmup": 2, "iters": 3, "min_time_s": min_time_s,
                          "reference_s": min_time_s}
    for spec in ("computation-FP32", "computation-FP64"):
        config.setdefault(spec, {}).update(sizes)
    config.update(extra or {})
    return yaml.safe_dump(config)


def chipperf_finished(spec: str, settings: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "cpu_configuration.yaml").write_text(settings)
        env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'base' / 'benchmarks'}",
               "CHIPPERF_VENDOR": "cpu", "CHIPPERF_DEVICE": "cpu"}
        done = subprocess.run([sys.executable, str(REPO / "base" / "benchmarks" / spec / "pytorch"
                                                   / "main.py"), "--extern_config_dir", tmp,
                               "--extern_config_file", "cpu_configuration.yaml"],
                              env=env, capture_output=True, text=True, check=True)
    line = [x for x in done.stdout.splitlines() if '"event": "FINISHED"' in x][-1]
    return dict(json.loads(line.split("[PerfLog] ", 1)[1])["value"])


def numpy_copy_gbs(size: int, iters: int, min_time_s: float) -> float:
    src, dst = np.ones(size // 4, np.float32), np.empty(size // 4, np.float32)
    np.copyto(dst, src)
    done, start = 0, time.perf_counter()
    while True:
        for _ in range(iters):
            np.copyto(dst, src)
        done += iters
        elapsed = time.perf_counter() - start
        if elapsed >= min_time_s:
            return 2.0 * size * done / elapsed / 1e9


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, help="M = N = K of the GEMMs (default: the vendor "
                   "config's per dtype)")
    p.add_argument("--bytes", type=int, default=1 << 28, help="copy buffer size")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--min-time", type=float, default=2.0)
    a = p.parse_args()
    gemm = settings(a.min_time, {"M": a.size, "N": a.size, "K": a.size} if a.size else {})
    copy = settings(a.min_time, {}, {"main_memory-bandwidth": {"bytes": a.bytes}})
    rows: dict[str, list[tuple[float, float]]] = {}
    threads = 0
    for _ in range(a.repeat):
        for dtype in ("FP32", "FP64"):
            done = chipperf_finished(f"computation-{dtype}", gemm)
            numpy_ref = done["numpy_reference"]
            threads = numpy_ref["threads"]
            size = done["method"]["M"]
            rows.setdefault(f"GEMM {dtype.lower()} {size}^3", []).append(
                (done["value"], numpy_ref["value"]))
        rows.setdefault("memory copy GB/s", []).append(
            (chipperf_finished("main_memory-bandwidth", copy)["value"],
             numpy_copy_gbs(a.bytes, 5, a.min_time)))
    print(f"numpy {np.__version__}, {os.cpu_count()} CPUs, GEMMs on {threads} threads; "
          f"best of {a.repeat} (each round: chipperf, then numpy)")
    print("GEMMs in TFLOP/s")
    print(f"{'figure':<22} {'chipperf':>10} {'numpy':>10} {'ratio':>7}  ratio per round")
    for name, pairs in rows.items():
        ours, ref = max(pairs)
        each = " ".join(f"{x / y:.3f}" for x, y in pairs)
        print(f"{name:<22} {ours:>10.4g} {ref:>10.4g} {ours / ref:>7.3f}  {each}")


if __name__ == "__main__":
    main()
