"""The image cases' ``data_mode`` rules, without a framework import: the case applies them
when it starts (``synthetic.check_data_mode``) and the plan applies them on the master before
any image is built (``chipperf.config.runlength.data_mode_problems``)."""

from __future__ import annotations

DATA_MODES = ("real", "predecoded", "synthetic")   # predecoded: imagecls.predecoded
# names a user may write for decoding on the accelerator, which no vendor's image case does
DEVICE_DECODE = ("device", "gpu", "nvjpeg", "dali")


def data_mode_problem(mode: object, run_mode: object) -> str | None:
    """Why ``data_mode`` cannot run with this ``run_mode``; None when it can."""
    if isinstance(mode, str) and mode.lower() in DEVICE_DECODE:
        return (f"data_mode = {mode!r}: decoding the images on the accelerator (nvJPEG, DALI) "
                f"is not implemented in chipperf's image cases, for any vendor: use 'real' "
                f"(decoded on the host by the DataLoader workers, num_workers) or 'predecoded' "
                f"(decoded once ahead of the run)")
    if mode not in DATA_MODES:
        return f"data_mode = {mode!r}: unknown: use one of {DATA_MODES}"
    if mode == "synthetic" and run_mode != "performance":
        return ("data_mode = 'synthetic' trains on random batches toward no target: set "
                "run_mode = 'performance' with perf_warmup_steps and timed_steps (e.g. --set "
                "run_mode=performance --set timed_steps=100)")
    return None
