"""Megatron-Core as a per-case implementation (chipperf.config.megatron_core): FlagPerf's
``megatron_core<version>`` keys plan as the pytorch case with ``implementation =
"megatron_core"`` on a CUDA vendor, recorded in the plan and run.json; a host without a GPU, a
case without a Megatron-Core build and a continue-training case are refused at plan time."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.cli import load_all
from chipperf.config import megatron_core
from chipperf.errors import ConfigError
from chipperf.frameworks import family
from chipperf.plan import make_plan

KEY = "mixtral_8x7B:megatron_core060:H100:4:8:1"
HOSTS = [f"10.1.2.{i}" for i in range(1, 5)]


def _load(tmp_path: Path, vendor: str, keys: list[str], extra: str = ""):
    cluster, test = tmp_path / "cluster_conf.py", tmp_path / "test_conf.py"
    cluster.write_text(f"HOSTS = {HOSTS!r}\n")
    cases = {k: "/data/tokens" for k in keys}
    test.write_text(f'VENDOR = "{vendor}"\nCASES = {cases!r}\n'
                    f'RESULT_ROOT = "{tmp_path / "result"}"\n{extra}')
    return load_all(str(cluster), str(test), None)


def test_megatron_core_frameworks_are_the_pytorch_family():
    assert family("megatron_core060") == "pytorch" and family("megatron_core") == "pytorch"
    assert family("megatron") == "megatron" and family("megatron_pai") == "megatron"


def test_flagperf_s_megatron_core_key_plans_as_the_megatron_core_implementation(tmp_path):
    cluster, test, catalogue = _load(tmp_path, "nvidia", [KEY])
    (entry,) = test.cases
    assert str(entry.key) == KEY and entry.case_args[-2:] == ("--set", "implementation='megatron_core'")
    assert "runs Megatron-Core" in entry.implementation
    plan = make_plan(cluster, test, catalogue, "run1", tmp_path / "result")
    (case,) = plan.cases
    assert case.implementation == entry.implementation and entry.implementation in case.notes
    assert "implementation='megatron_core'" in case.rounds[0].nodes[0].command


def test_a_megatron_core_key_beside_its_flagscale_key_keeps_both(tmp_path):
    """FlagPerf lists mixtral_8x7B's 4 x 8 H100 under flagscale (the native case) and
    megatron_core060 (Megatron-Core): two cases, two result dirs."""
    flagscale = "mixtral_8x7B:flagscale_2409:H100:4:8:1"
    _, test, _ = _load(tmp_path, "nvidia", [flagscale, KEY])
    keys = [str(e.key) for e in test.cases]
    assert keys == ["mixtral_8x7B:pytorch_2.13:H100:4:8:1", KEY]
    assert [megatron_core.chosen(e, {}, {}) for e in test.cases] == ["native", "megatron_core"]


def test_a_megatron_key_on_a_host_without_a_gpu_is_refused_with_one_message(tmp_path):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, "cpu", ["llama3_8B:megatron_core060:xeon:1:1:1"])
    (problem,) = [p for p in err.value.problems if "implementation" in p]
    assert "runs on NVIDIA GPUs only" in problem and \
        "vendor 'cpu' runs on 'cpu' (host CPU cores)" in problem
    assert "implementation = 'native'" in problem


def test_choosing_megatron_core_by_overrides_is_checked_the_same_way(tmp_path):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, "cpu", ["llama3_8B:pytorch_2.13:xeon:1:1:1"],
              'OVERRIDES = {"implementation": "megatron_core"}\n')
    assert any("runs on NVIDIA GPUs only" in p for p in err.value.problems)
    _, test, _ = _load(tmp_path, "cpu", ["llama3_8B:pytorch_2.13:xeon:1:1:1"],
                       'OVERRIDES = {"implementation": "native"}\n')
    assert len(test.cases) == 1


def test_a_case_without_a_megatron_core_build_or_with_checkpoints_is_refused(tmp_path):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, "nvidia", ["qwen1.5_MoE:megatron_core060:A800:1:8:1"])
    assert any("has no Megatron-Core build" in p for p in err.value.problems)
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, "nvidia", ["llama3_70B_continuetrain:megatron_core060:H100:4:8:1"])
    assert any("neither loads nor writes" in p and "checkpoint = 'llama3_ckpt'" in p
               for p in err.value.problems)


def test_a_megatron_core_key_on_other_accelerators_runs_the_native_case_with_a_note(tmp_path):
    """FlagPerf's kunlunxin and metax sections list llama3_8B:megatron_core060 (their ports of
    Megatron): chipperf runs Megatron-Core on NVIDIA's GPUs only, and its native case there,
    saying so."""
    _, test, _ = _load(tmp_path, "kunlunxin", ["llama3_8B:megatron_core060:R300p:1:8:1"],
                       'BASE_IMAGE = "registry.example/kunlunxin/framework"\n')
    (entry,) = test.cases
    assert entry.case_args == () and "runs on NVIDIA GPUs only (vendor 'kunlunxin' runs on " \
        "'xpu'" in entry.implementation and "torch-native" in entry.implementation
    _, test, _ = _load(tmp_path, "metax", ["llama3_8B:megatron_core060:C500:1:8:1"],
                       'BASE_IMAGE = "registry.example/metax/framework"\n')
    assert "vendor 'metax' runs on 'cuda'" in test.cases[0].implementation   # MACA: not NVIDIA


def test_megatron_core_chosen_by_the_config_is_recorded_as_a_key_s_is(tmp_path):
    """OVERRIDES (or a vendor config) choosing Megatron-Core: the plan, run.json and the case's
    SUBMIT_INFO variable carry a note saying so, replacing a Megatron-LM key's native note."""
    cluster, test, catalogue = _load(
        tmp_path, "nvidia", ["llama3_8B:pytorch_2.13:A100:1:8:1", "llama2_70B:megatron:H800:4:8:1"],
        'OVERRIDES = {"implementation": "megatron_core"}\n')
    plan = make_plan(cluster, test, catalogue, "run1", tmp_path / "result")
    notes = [case.implementation for case in plan.cases]
    assert all("the config sets implementation = 'megatron_core'" in n for n in notes), notes
    assert not any("torch-native pytorch case" in n for n in notes)
    node = plan.cases[0].rounds[0].nodes[0]
    assert node.env["CHIPPERF_IMPLEMENTATION_NOTE"] == notes[0]


def test_megatron_core_with_context_or_sequence_parallelism_is_refused(tmp_path):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, "nvidia", [KEY], 'OVERRIDES = {"sequence_parallel": True}\n')
    assert any("runs without context and sequence parallelism (sequence_parallel = True)" in p
               for p in err.value.problems)
