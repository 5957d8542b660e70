"""The Paddle LLM cases' model (chipperf_runtime/training/paddlellm/model.py): at full size
(declared under paddle.LazyGuard, nothing allocated) it holds exactly the parameters
paddlellm/arch.py counts and case.yaml lists; at one rank its stage is the whole model.

Paddle runs in one child process: importing it into the pytest process after TensorFlow
crashes that process (training/benchmarks/bert/paddle/README.md)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import yaml

from chipperf_runtime.training.paddlellm import arch

REPO = Path(__file__).resolve().parents[2]

PROBE = textwrap.dedent("""
    import json
    from chipperf_runtime.training.paddlellm import arch
    from chipperf_runtime.training.paddlellm.layout import Layout
    from chipperf_runtime.training.paddlellm.model import Stage, count_parameters, declared_only
    from chipperf_runtime.training.paddlellm.parallel import Groups

    one_rank = Groups(Layout(tp=1, pp=1, sharding=1, stage=1, world=1), rank=0)
    counts = {}
    for family, size in arch.MODELS.values():
        with declared_only():
            counts[f"{family}:{size}"] = count_parameters(
                Stage(family, arch.shape(family, size), one_rank, seed=0))
    print(json.dumps(counts))
""")


def test_full_size_models_declare_the_counted_parameters():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=600, cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin"})
    assert done.returncode == 0, done.stderr[-3000:]
    declared = json.loads(done.stdout.strip().splitlines()[-1])
    for model, (family, size) in arch.MODELS.items():
        counted = arch.parameter_count(family, arch.shape(family, size))
        listed = yaml.safe_load((REPO / "training/benchmarks" / model / "paddle/case.yaml")
                                .read_text())["full_size"]["params"]
        assert declared[f"{family}:{size}"] == counted == listed, model
