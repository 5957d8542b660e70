"""Tests' runner of llm_layout_steps.py: one process, or N gloo ranks under
torch.distributed.run, with a hard timeout (a hang fails the test, it is not skipped)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

STEPS = Path(__file__).parent / "llm_layout_steps.py"
TIMEOUT_S = 240
# fp32 on CPU: layouts sum the same terms in another order (all-reduces, sharded matmuls,
# all-to-all). Measured: relative differences up to 1e-6 after 3 AdamW steps (PP x TP, EP x
# TP); 1e-4 leaves room for other CPUs' summation orders and is far below a real fault (a
# lost micro-batch or a doubled expert gradient moves the step-2 loss by >1e-3).
RTOL = 1e-4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def layout_steps(case: str, nproc: int, out: Path, *overrides: str) -> dict:
    """{"losses": [...], "eval_loss": x, "layout": {...}} of a run on ``nproc`` ranks."""
    launcher = [] if nproc == 1 else ["-m", "torch.distributed.run", f"--nproc_per_node={nproc}",
                                      f"--master_port={free_port()}"]
    try:
        run = subprocess.run([sys.executable, *launcher, str(STEPS), case, str(out), *overrides],
                             capture_output=True, text=True, timeout=TIMEOUT_S,
                             env={**os.environ, "OMP_NUM_THREADS": "1"})
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{case} {overrides} on {nproc} ranks did not finish in "
                             f"{TIMEOUT_S} s (a hang)") from exc
    assert run.returncode == 0, failure_text(run.stderr)
    return json.loads(out.read_text())


def failure_text(stderr: str, keep: int = 2500) -> str:
    """The start and the end of a failed run's stderr: a rank's own message comes before
    torch.distributed.run's summary of the failure, which alone fills the end."""
    if len(stderr) <= 2 * keep:
        return stderr
    return f"{stderr[:keep]}\n[... {len(stderr) - 2 * keep} characters ...]\n{stderr[-keep:]}"


def assert_same_training(got: dict, one: dict) -> None:
    pairs = list(zip(got["losses"] + [got["eval_loss"]], one["losses"] + [one["eval_loss"]]))
    assert len(pairs) == len(one["losses"]) + 1 and len(one["losses"]) == 3, (got, one)
    for a, b in pairs:
        assert abs(a - b) <= RTOL * abs(b), (got, one)
