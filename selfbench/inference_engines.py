"""Compare inference engines on the resnet50 case (or, with --llm, the llama3_8b LLM serving
case) on this machine.

    python3 selfbench/inference_engines.py [--engines eager,compile,onnxruntime]
        [--precisions fp32] [--data-dir DIR] [--set key=value ...] [--json OUT]
    python3 selfbench/inference_engines.py --llm [--engines eager,compile,vllm] ...

With --llm: the llama3_8b entry with the vendor cpu configuration (a tiny llama, random
weights), prompts cut from /usr/share/common-licenses (prepare_prompts.py) unless --data-dir;
per engine: offline output tokens/s, single-stream TTFT and TPOT, the highest server rate
within the bound, the harness's own share of the single-stream (batch 1) request time, the
greedy token agreement and logit deviation from fp32 eager; an engine the device lacks
(vllm on cpu) is listed as skipped with the case's reason.

Runs the real case entry (inference/benchmarks/resnet50/pytorch/run_inference.py, vendor cpu
configuration) once per engine and precision, reads its FINISHED record and prints offline
throughput (raw: with host pre/post-processing; pure: engine calls alone), single-stream p50
and p99 latency, each engine's ratio to PyTorch eager fp32, the deviation from the fp32
reference and the engine build time. Without --data-dir, the scikit-learn digits are written as
an ImageNet val folder (training/benchmarks/resnet50/pytorch/prepare_digits.py). The load
average is printed too: on a shared machine the figures move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "inference" / "benchmarks"
ENTRY = BENCH / "resnet50" / "pytorch" / "run_inference.py"
CONFIG = REPO / "inference" / "configs" / "resnet50"
PREPARE = REPO / "training" / "benchmarks" / "resnet50" / "pytorch" / "prepare_digits.py"
LLM_ENTRY = BENCH / "llama3_8b" / "pytorch" / "run_inference.py"
LLM_CONFIG = REPO / "inference" / "configs" / "llama3_8b"
LLM_PREPARE = BENCH / "llama3_8b" / "pytorch" / "prepare_prompts.py"
LLM_SETS = ("batch_size=2", "prompt_tokens_min=16", "prompt_tokens_max=64",
            "output_tokens_min=16", "output_tokens_max=32", "offline_requests=8",
            "single_stream_requests=8", "server_requests=8", "server_load_fractions=[0.5]",
            "accuracy_requests=2")
DEFAULT_SETS = ("image_size=224", "resize_size=256", "batch_size=8", "max_items=32",
                "latency_queries=32", "latency_warmup=4", "warmup_batches=1")

sys.path.insert(0, str(REPO))
from chipperf_runtime.perflog import parse_lines  # noqa: E402


def run_engine(data_dir: Path, engine: str, precision: str, sets: list[str],
               entry: Path = ENTRY, config: Path = CONFIG) -> dict:
    """One run of the case; its FINISHED value (or the error it stopped with)."""
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{BENCH}",
           "CHIPPERF_VENDOR": os.environ.get("CHIPPERF_VENDOR", "cpu"),
           "CHIPPERF_DEVICE": os.environ.get("CHIPPERF_DEVICE", "cpu")}
    with tempfile.TemporaryDirectory() as out:
        argv = [sys.executable, "-u", str(entry), "--data_dir", str(data_dir),
                "--extern_config_dir", str(config), "--extern_config_file",
                "cpu_configuration.yaml", "--output_dir", out,
                "--set", *sets, f"engine={engine}", f"precision={precision}"]
        proc = subprocess.run(argv, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)
    events, _ = parse_lines(proc.stdout.splitlines())
    finished = [e.value for e in events if e.name == "FINISHED"]
    if proc.returncode != 0 or not finished:
        return {"engine": engine, "precision": precision,
                "error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    return dict(finished[-1])


RATIOS = (("raw", ("throughput", "raw")), ("pure", ("throughput", "pure_compute")),
          ("p99", ("latency_ms", "p99")))


def ratios(result: dict, base: dict | None) -> list[str]:
    """This engine's figure over eager fp32's, for raw and pure throughput and p99 latency."""
    if base is None:
        return ["n/a"] * len(RATIOS)
    return [f"{result[a][b] / base[a][b]:.2f}" for _, (a, b) in RATIOS]


def table(results: list[dict]) -> str:
    base = next((r for r in results if r.get("engine") == "eager" and r.get("precision") == "fp32"
                 and "error" not in r), None)
    head = (f"{'engine':<12} {'prec':<5} {'raw it/s':>9} {'pure it/s':>10} {'p50 ms':>8} "
            f"{'p99 ms':>8} {'raw/eager':>9} {'pure/eager':>10} {'p99/eager':>9} "
            f"{'max|diff|':>10} {'ok':>3} {'build s':>8}")
    lines = [head, "-" * len(head)]
    for r in results:
        if "error" in r:
            lines.append(f"{r['engine']:<12} {r['precision']:<5} error: {r['error']}")
            continue
        t, lat = r["throughput"], r["latency_ms"]
        raw, pure, p99 = ratios(r, base)
        lines.append(
            f"{r['engine']:<12} {r['precision']:<5} {t['raw']:>9.2f} {t['pure_compute']:>10.2f} "
            f"{lat['p50']:>8.1f} {lat['p99']:>8.1f} {raw:>9} {pure:>10} {p99:>9} "
            f"{r['reference']['max_abs_diff']:>10.2e} {'yes' if r['converged'] else 'NO':>3} "
            f"{r['engine_build_time_s']:>8.1f}")
    return "\n".join(lines)


def llm_table(results: list[dict]) -> str:
    head = (f"{'engine':<8} {'prec':<5} {'offline tok/s':>13} {'TTFT p50 ms':>11} "
            f"{'TTFT p99 ms':>11} {'TPOT p50 ms':>11} {'server req/s':>12} {'harness %':>9} "
            f"{'agree':>6} {'max|diff|':>10} {'build+warm s':>12}")
    lines = [head, "-" * len(head)]
    for r in results:
        if "error" in r:
            lines.append(f"{r['engine']:<8} {r['precision']:<5} skipped: {r['error']}")
            continue
        serving = r["serving"]
        single, best = serving["single_stream"], serving["server"]["max_rate_meeting_bound"]
        diff = r["reference"]["max_abs_diff"]
        lines.append(
            f"{r['engine']:<8} {r['precision']:<5} {serving['offline']['tokens_per_s']:>13.1f} "
            f"{single['ttft_ms']['p50']:>11.1f} {single['ttft_ms']['p99']:>11.1f} "
            f"{single['tpot_ms']['p50']:>11.1f} "
            f"{'none' if best is None else f'{best:.3g}':>12} "
            f"{100 * single['harness_share']:>9.3f} {r['metric']['value']:>6.3f} "
            f"{'n/a' if diff is None else f'{diff:.2e}':>10} "
            f"{r['engine_build_time_s'] + r.get('warmup_time_s', 0.0):>12.1f}")
    return "\n".join(lines)


def main_llm(args: argparse.Namespace) -> int:
    engines = args.engines if args.engines_given else "eager,compile,vllm"
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or Path(tmp) / "prompts"
        if args.data_dir is None:
            subprocess.run([sys.executable, str(LLM_PREPARE), "/usr/share/common-licenses",
                            str(data_dir)], check=True, stdout=subprocess.DEVNULL)
        sets = [*LLM_SETS, *args.set]
        print(f"llama3_8b (vendor cpu configuration), data {data_dir}, settings: {' '.join(sets)}")
        print(f"cpus: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
        results = []
        for precision in args.precisions.split(","):
            for engine in engines.split(","):
                results.append(run_engine(data_dir, engine, precision, sets, LLM_ENTRY,
                                          LLM_CONFIG))
                print(f"  ran {engine} {precision} (load average {os.getloadavg()[0]:.2f})",
                      flush=True)
    print(llm_table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if any("error" not in r for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--llm", action="store_true", help="the llama3_8b LLM serving case")
    p.add_argument("--engines", default=None,
                   help="default eager,compile,onnxruntime (--llm: eager,compile,vllm)")
    p.add_argument("--precisions", default="fp32")
    p.add_argument("--data-dir", type=Path)
    p.add_argument("--set", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                   help=f"case overrides, after the defaults {' '.join(DEFAULT_SETS)}")
    p.add_argument("--json", type=Path, help="also write every FINISHED record here")
    args = p.parse_args(argv)
    args.engines_given = args.engines is not None
    if args.llm:
        return main_llm(args)
    args.engines = args.engines or "eager,compile,onnxruntime"
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or Path(tmp) / "digits"
        if args.data_dir is None:
            subprocess.run([sys.executable, str(PREPARE), str(data_dir)], check=True,
                           stdout=subprocess.DEVNULL)
        sets = [*DEFAULT_SETS, *args.set]
        print(f"resnet50, data {data_dir}, settings: {' '.join(sets)}")
        print(f"cpus: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
        results = []
        for precision in args.precisions.split(","):
            for engine in args.engines.split(","):
                results.append(run_engine(data_dir, engine, precision, sets))
                print(f"  ran {engine} {precision} (load average {os.getloadavg()[0]:.2f})",
                      flush=True)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if all("error" not in r for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
