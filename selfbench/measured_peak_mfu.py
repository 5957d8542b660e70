"""resnet50 inference's MFU against the cpu GEMM peak that base/ measures, back to back.

    python3 selfbench/measured_peak_mfu.py [--set name=value ...]

Runs the resnet50 inference case with its cpu vendor config (onnxruntime, fp32, 224 px) on
the resnet50 training case's digits (an ImageNet-layout folder), then base/'s
computation-FP32 with its cpu vendor config (every usable core, numpy beside it), both as a
rank would (the launch contract's arguments, PerfLog read back), and prints the inference's
achieved FLOP/s (throughput x FLOPs per item) over that measured peak: what
``chipperf report INF_RUN --measured-peaks BASE_RUN`` shows as "MFU vs measured peak", which
must stay below 100 % (issue 26).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from chipperf_runtime.perflog import parse_lines  # noqa: E402


def finished(argv: list[str], pythonpath: Path) -> dict[str, Any]:
    """The FINISHED of one rank run as chipperf launches it on vendor cpu."""
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{pythonpath}",
           "CHIPPERF_VENDOR": "cpu", "CHIPPERF_DEVICE": "cpu"}
    done = subprocess.run([sys.executable, "-u", *argv], env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, check=False)
    events, _ = parse_lines(done.stdout.splitlines())
    ends = [e.value for e in events if e.name == "FINISHED"]
    if done.returncode != 0 or not ends:
        raise SystemExit(f"{argv[0]} failed (exit {done.returncode}): {done.stderr[-2000:]}")
    return dict(ends[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", nargs="*", default=[], help="inference overrides (name=value)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "digits"
        subprocess.run([sys.executable, str(REPO / "training" / "benchmarks" / "resnet50" /
                                            "pytorch" / "prepare_digits.py"), str(data)],
                       check=True, capture_output=True)
        config = REPO / "inference" / "configs" / "resnet50"
        inference = finished(
            [str(REPO / "inference" / "benchmarks" / "resnet50" / "pytorch" / "run_inference.py"),
             "--data_dir", str(data), "--extern_config_dir", str(config),
             "--extern_config_file", "cpu_configuration.yaml", "--output_dir",
             str(Path(tmp) / "out"), *(["--set", *args.set] if args.set else [])],
            REPO / "inference" / "benchmarks")
    base = finished([str(REPO / "base" / "benchmarks" / "computation-FP32" / "pytorch" /
                         "main.py"), "--extern_config_dir",
                     str(REPO / "base" / "configs" / "vendor_config"), "--extern_config_file",
                     "cpu_configuration.yaml"], REPO / "base" / "benchmarks")
    peak = base["value"] * 1e12
    m, numpy_ref = base["method"], base["numpy_reference"]
    print(f"base/ computation-FP32: {base['value']:.4g} TFLOP/s ({m['M']}^3, {m['threads']} "
          f"threads); numpy beside it {numpy_ref['value']:.4g} TFLOP/s, ratio "
          f"{base['ratio_to_numpy']:.3f}")
    print(f"resnet50 inference ({inference['engine']}, {inference['precision']}): "
          f"{inference['flops_per_unit']:.4g} FLOP/item")
    for kind in ("raw", "pure_compute"):
        achieved = inference["throughput"][kind] * inference["flops_per_unit"]
        print(f"  {kind:<13} {inference['throughput'][kind]:8.3f} items/s = "
              f"{achieved / 1e12:.4g} TFLOP/s: MFU vs measured peak {100 * achieved / peak:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
