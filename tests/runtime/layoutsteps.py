"""Tests' runner of llm_layout_steps.py: one process, or N gloo ranks forked from one (its
``--ranks``), with a hard timeout (a hang fails the test, it is not skipped; the ranks are
killed with it)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

STEPS = Path(__file__).parent / "llm_layout_steps.py"
IMAGE_SITE = Path(__file__).parents[1] / "imagesite"    # no scikit-learn, as in the cpu images
TIMEOUT_S = 240
# fp32 on CPU: layouts sum the same terms in another order (all-reduces, sharded matmuls,
# all-to-all). Measured: relative differences up to 1e-6 after 3 AdamW steps (PP x TP, EP x
# TP); 1e-4 leaves room for other CPUs' summation orders and is far below a real fault (a
# lost micro-batch or a doubled expert gradient moves the step-2 loss by >1e-3).
RTOL = 1e-4


def layout_steps(case: str, nproc: int, out: Path, *overrides: str) -> dict:
    """{"losses": [...], "eval_loss": x, "layout": {...}} of a run on ``nproc`` ranks."""
    ranks = [] if nproc == 1 else ["--ranks", str(nproc)]
    with subprocess.Popen([sys.executable, str(STEPS), *ranks, case, str(out), *overrides],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True,
                          env={**os.environ, "OMP_NUM_THREADS": "1",
                               "PYTHONPATH": os.pathsep.join(filter(None, (
                                   str(IMAGE_SITE), os.environ.get("PYTHONPATH"))))}) as run:
        try:
            _, stderr = run.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
            raise AssertionError(f"{case} {overrides} on {nproc} ranks did not finish in "
                                 f"{TIMEOUT_S} s (a hang)") from exc
    assert run.returncode == 0, failure_text(stderr)
    return json.loads(out.read_text())


def failure_text(stderr: str, keep: int = 2500) -> str:
    """The start and the end of a failed run's stderr: a rank's own message comes before
    the summary of the failure (which ranks ended how), which may fill the end."""
    if len(stderr) <= 2 * keep:
        return stderr
    return f"{stderr[:keep]}\n[... {len(stderr) - 2 * keep} characters ...]\n{stderr[-keep:]}"


def assert_same_training(got: dict, one: dict) -> None:
    pairs = list(zip(got["losses"] + [got["eval_loss"]], one["losses"] + [one["eval_loss"]]))
    assert len(pairs) == len(one["losses"]) + 1 and len(one["losses"]) == 3, (got, one)
    for a, b in pairs:
        assert abs(a - b) <= RTOL * abs(b), (got, one)
