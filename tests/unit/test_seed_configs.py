"""The seed's workloads (issue 40: Hugging Face's Gaudi2 vs A100 80GB posts) ship as configs
that plan: BERT phase 1 at 32 and 64 per card and T5-3B on 8 A100 and 8 Gaudi2
(training/run_benchmarks/config/seed/), each with the per-card batch it says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chipperf.cli import main

REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "training" / "run_benchmarks" / "config" / "seed"
CLUSTER = REPO / "training" / "run_benchmarks" / "config" / "cluster_conf.py"
# test_conf -> the global batch the case gets (per card x 8)
GLOBAL_BATCH = {
    "test_conf_bert_phase1_A100x8_b32.py": 256, "test_conf_bert_phase1_A100x8_b64.py": 512,
    "test_conf_bert_phase1_Gaudi2x8_b32.py": 256, "test_conf_bert_phase1_Gaudi2x8_b64.py": 512,
    "test_conf_t5_3b_A100x8.py": 128, "test_conf_t5_3b_Gaudi2x8.py": 8,
}


def test_every_seed_config_is_listed_here() -> None:
    assert sorted(p.name for p in SEED.glob("test_conf_*.py")) == sorted(GLOBAL_BATCH)


@pytest.mark.parametrize("name", sorted(GLOBAL_BATCH))
def test_a_seed_config_plans_with_its_batch(name: str, capsys: pytest.CaptureFixture) -> None:
    from chipperf.cli import load_all
    from chipperf.plan import make_plan

    assert main(["plan", "--cluster", str(CLUSTER), "--test", str(SEED / name)]) == 0
    assert "config_" in capsys.readouterr().out
    plan = make_plan(*load_all(str(CLUSTER), str(SEED / name), None), "run1", Path("/tmp/r"))
    (case,) = plan.cases
    assert (case.nnodes, case.nproc) == (1, 8)
    assert global_batch(case) == GLOBAL_BATCH[name]


def global_batch(case) -> int:
    """The case's global batch: an OVERRIDES ``--set``, else the first of its vendor config,
    the vendor's config_common.py, the case's config/_base.py and what that star-imports
    that sets it."""
    command = case.rounds[0].nodes[0].command
    sets = [command[i + 1] for i, word in enumerate(command) if word == "--set"]
    for setting in sets:
        if setting.startswith("global_batch_size="):
            return int(setting.split("=", 1)[1])
    model = case.key.split(":")[0]
    configs = REPO / "training" / case.vendor / f"{model}-pytorch" / "config"
    base = REPO / "training" / "benchmarks" / model / "pytorch" / "config" / "_base.py"
    imported = [REPO / (name.replace(".", "/") + ".py") for name in
                re.findall(r"^from (chipperf_runtime[\w.]*) import \*", base.read_text(), re.M)]
    for path in (configs / command[command.index("--extern_config_file") + 1],
                 configs / "config_common.py", base, *reversed(imported)):
        found = re.findall(r"^global_batch_size = (\d+)", path.read_text(), re.M)
        if found:
            return int(found[-1])
    raise AssertionError(f"{case.key}: no global_batch_size in its configs")
