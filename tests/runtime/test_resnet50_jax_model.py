"""The resnet50/jax model (Flax): at full size it has torchvision's resnet50 parameter count,
25,557,032, and the resnet50/pytorch case's training FLOPs per sample, both as case.yaml
records them; counted on abstract shapes (``jax.eval_shape``), so no weight is materialised.

JAX runs in one child process (module fixture), apart from the frameworks other tests of this
tier import into the pytest process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "training" / "benchmarks" / "resnet50" / "jax"
TORCHVISION_RESNET50_PARAMS = 25_557_032     # sum(p.numel() for p in torchvision resnet50())
RESNET50_MACS = 4_089_184_256                # the resnet50/pytorch case's count (its case.yaml)

PROBE = textwrap.dedent("""
    import json, sys
    import jax
    import arch, model as m
    out = {}
    for name, classes, size in (("resnet50", 1000, 224), ("tiny", 10, 32)):
        blocks, width = arch.PRESETS[name]
        spec = m.ResNetSpec(num_classes=classes, image_size=size, blocks=blocks, base_width=width)
        variables = m.abstract_variables(spec)
        leaves = jax.tree_util.tree_leaves(variables)
        out[name] = {"params": m.parameter_count(variables), "forward": m.forward_flops(spec),
                     "train": m.train_flops(spec),
                     "abstract": all(isinstance(x, jax.ShapeDtypeStruct) for x in leaves),
                     "state": sorted(variables)}
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def counts() -> dict[str, Any]:
    env_path = f"{CASE}:{REPO}"
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                            timeout=300, cwd=CASE, env={"PYTHONPATH": env_path,
                                                        "JAX_PLATFORMS": "cpu",
                                                        "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_full_size_has_torchvisions_parameter_count_on_abstract_shapes(counts) -> None:
    full = counts["resnet50"]
    assert full["params"] == TORCHVISION_RESNET50_PARAMS
    assert full["abstract"] is True                   # eval_shape: shapes, no arrays
    assert full["state"] == ["batch_stats", "params"]  # running statistics kept apart


def test_full_size_flops_are_the_pytorch_cases_and_case_yaml_records_both(counts) -> None:
    full = counts["resnet50"]
    assert full["forward"] == 2 * RESNET50_MACS and full["train"] == 3 * full["forward"]
    recorded = yaml.safe_load((CASE / "case.yaml").read_text())["full_size"]
    assert recorded == {"params": full["params"], "flops_per_unit": full["train"]}


def test_the_ci_size_is_the_same_code_smaller(counts) -> None:
    tiny = counts["tiny"]
    assert 0 < tiny["params"] < counts["resnet50"]["params"] // 40
    assert tiny["train"] == 3 * tiny["forward"] > 0
