"""FlagPerf's Megatron-LM / FlagScale / DeepSpeed LLM keys plan as chipperf's torch-native case of the same
model, and the implementation difference is said at plan time, kept in run.json (and the
case's SUBMIT_INFO variable), and shown by the report and by compare. FlagPerf's Megatron-Core
keys (``megatron_core060``) run Megatron-Core itself (test_megatron_core_plan.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from synthetic_results import SynthCase, write_run

from chipperf.config.implementations import torch_native
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check, make_plan
from chipperf.results.read.collect import collect
from chipperf.results.render.compare import compare
from chipperf.results.render.console import console
from chipperf.run.record import RunRecord
from chipperf.suites.catalogue import Catalogue, default_training_dir
from chipperf_runtime.training.driver.config import IMPLEMENTATION_ENV

CATALOGUE = Catalogue.scan(default_training_dir())
WHAT = ("Megatron-LM's fused kernels and schedule vs chipperf's DTensor TP + FSDP2; the figures "
        "are not comparable with FlagPerf's megatron results")


def planned(*keys: str, vendor: str = "nvidia") -> TestConfig:
    test = TestConfig(vendor=vendor, cases=tuple(CaseEntry(CaseKey.parse(k), "/data") for k in keys))
    return torch_native(test, CATALOGUE)


def test_megatron_and_flagscale_keys_become_the_torch_native_case_with_a_note() -> None:
    test = planned("llama3_8B:megatron:A100:1:8:1", "aquila2_7b:flagscale:A100:1:8:1",
                   "qwen1.5_MoE:megatron_pai:H100:1:8:1", "resnet50:pytorch_2.13:A100:1:8:1",
                   "mixtral_8x7B:megatron_core060:H200:1:8:1")
    keys = [str(e.key) for e in test.cases]
    assert keys == ["llama3_8B:pytorch_2.13:A100:1:8:1", "aquila2_7b:pytorch_2.13:A100:1:8:1",
                    "qwen1.5_MoE:pytorch_2.13:H100:1:8:1", "resnet50:pytorch_2.13:A100:1:8:1",
                    "mixtral_8x7B:megatron_core060:H200:1:8:1"]
    notes = [e.implementation for e in test.cases]
    assert notes[0] == ("llama3_8B:megatron:A100:1:8:1: FlagPerf's framework "
                        "'megatron' runs Megatron-LM; planned as chipperf's torch-native "
                        f"pytorch case: {WHAT}")
    assert "FlagScale's fused kernels" in notes[1] and "flagscale results" in notes[1]
    assert WHAT in notes[2] and notes[3] == ""
    assert "runs Megatron-Core; planned as chipperf's pytorch case with implementation = " \
        "'megatron_core'" in notes[4]
    cluster = ClusterConfig(hosts=("10.0.0.1", "10.0.0.2"), master_port=29600, work_root="/w")
    assert check(cluster, test, CATALOGUE) == []


def test_llava_s_deepspeed_and_flagscale_keys_become_its_torch_native_case() -> None:
    test = planned("llava1.5_7b:deepspeed-torch:H100:1:8:1", "llava1.5_7b:flagscale_2409:H100:4:8:1")
    assert [str(e.key) for e in test.cases] == ["llava1.5_7b:pytorch_2.13:H100:1:8:1",
                                                "llava1.5_7b:pytorch_2.13:H100:4:8:1"]
    deepspeed, flagscale = (e.implementation for e in test.cases)
    assert deepspeed == ("llava1.5_7b:deepspeed-torch:H100:1:8:1: FlagPerf's framework "
                         "'deepspeed-torch' runs DeepSpeed; planned as chipperf's torch-native "
                         "pytorch case: DeepSpeed's ZeRO sharding and fused optimizer vs "
                         "chipperf's FSDP2; the figures are not comparable with FlagPerf's "
                         "deepspeed results")
    assert "FlagScale's fused kernels" in flagscale


def test_a_key_with_no_torch_native_case_or_already_listed_stays_as_written() -> None:
    test = planned("llama2_7b:megatron-deepspeed:A100:1:8:1",      # llama2_7b is deepspeed here
                   "llama2_7b:deepspeed:A100:1:8:1",               # a case chipperf has itself
                   "llama3_8B:pytorch_2.13:A100:1:8:1", "llama3_8B:megatron:A100:1:8:1")
    assert [str(e.key) for e in test.cases] == [
        "llama2_7b:megatron-deepspeed:A100:1:8:1", "llama2_7b:deepspeed:A100:1:8:1",
        "llama3_8B:pytorch_2.13:A100:1:8:1", "llama3_8B:megatron:A100:1:8:1"]
    assert not any(e.implementation for e in test.cases)


def test_the_plan_run_json_and_the_case_environment_carry_the_note(tmp_path: Path) -> None:
    test = planned("llama3_8B:megatron:A100:1:8:1")
    cluster = ClusterConfig(hosts=("10.0.0.1",), master_port=29600, work_root="/w")
    plan = make_plan(cluster, test, CATALOGUE, "run1", tmp_path)
    case = plan.cases[0]
    note = test.cases[0].implementation
    assert note in case.notes and case.implementation == note
    assert all(n.env[IMPLEMENTATION_ENV] == note for r in case.rounds for n in r.nodes)
    assert RunRecord._case(case)["implementation"] == note


def test_report_and_compare_show_the_note(tmp_path: Path) -> None:
    note = f"llama3_8B:megatron_core060:A100:2:2:3: {WHAT}"
    runs = []
    for name in ("a", "b"):
        run_dir = write_run(tmp_path / name, [SynthCase(model="llama3_8B")],
                            run_id=f"run2026010{len(runs)}000000")
        if name == "a":
            run = json.loads((run_dir / "run.json").read_text())
            for entry in run["cases"].values():
                entry["implementation"] = note
            (run_dir / "run.json").write_text(json.dumps(run))
        runs.append(collect(run_dir).summary)
    assert runs[0].cases[0].implementation == note and runs[1].cases[0].implementation == ""
    assert f": {note}" in console(runs[0])
    assert f"run20260100000000: {note}" in compare(runs).notes


# FlagPerf's in-container launch (FlagOpen/FlagPerf@1b5a0303 training/run_benchmarks/in_container/):
# case folders training/benchmarks/aquila2_{7B,34B,70B}_container/in_container, vendor folders
# training/<vendor>/<case>-in_container; nvidia's layouts need 1, 2 and 4 nodes of 8 GPUs
IN_CONTAINER_KEYS = {"aquila2_7B_container:in_container:A100:1:8:1": "aquila2_7b:pytorch_2.13:A100:1:8:1",
                     "aquila2_34B_container:in_container:A100:2:8:1": "aquila2_34B:pytorch_2.13:A100:2:8:1",
                     "aquila2_70B_container:in_container:A100:4:8:1": "aquila2_70B:pytorch_2.13:A100:4:8:1"}


def test_flagperf_s_aquila2_in_container_keys_plan_in_the_existing_containers(tmp_path: Path) -> None:
    from chipperf.cli import load_all
    from chipperf.commands.render_plan import render_plan

    for in_container in (True, False):
        (tmp_path / "test_conf.py").write_text(
            f'VENDOR = "nvidia"\nIN_CONTAINER_LAUNCH = {in_container}\n'
            f'CASES = {dict.fromkeys(IN_CONTAINER_KEYS, "/data/aquila2_pretrain")!r}\n')
        (tmp_path / "cluster_conf.py").write_text(f"HOSTS = {[f'10.1.2.{i}' for i in range(1, 5)]!r}\n")
        cluster, test, catalogue = load_all(str(tmp_path / "cluster_conf.py"),
                                            str(tmp_path / "test_conf.py"), str(default_training_dir()))
        assert [str(e.key) for e in test.cases] == list(IN_CONTAINER_KEYS.values())
        assert all("FlagPerf's framework 'in_container' runs FlagScale in the hosts' running "
                   "containers; planned as chipperf's torch-native pytorch case" in e.implementation
                   for e in test.cases)
        text = render_plan(make_plan(cluster, test, catalogue, "run1", Path("r")), cluster, test, catalogue)
        assert ("launch      IN_CONTAINER_LAUNCH: the hosts are existing containers" in text) is in_container
        assert text.count("  image     none (the container's own)") == (3 if in_container else 0)
    named = dataclasses.replace(test, in_container_launch=True, in_container_name="vendor-pytorch")
    text = render_plan(make_plan(cluster, named, catalogue, "run1", Path("r")), cluster, named, catalogue)
    assert ("launch      IN_CONTAINER_LAUNCH: the running container 'vendor-pytorch' on each host "
            "(checked when the run starts: running, and on the host's network for a multi-node "
            "case)") in text
    assert "      by hand   docker exec -d vendor-pytorch env " in text and "docker run" not in text
    assert text.count("in container vendor-pytorch on 10.1.2.") == 2 * (1 + 2 + 4)   # case + monitor


def test_in_container_is_a_family_of_its_own_and_needs_a_pytorch_case() -> None:
    from chipperf.frameworks import family

    assert family("in_container") == "in_container" and family("inception_1.0") == "inception"
    test = planned("gpt3_13B:in_container:A100:1:8:1")     # a paddle case only: kept, refused
    assert str(test.cases[0].key) == "gpt3_13B:in_container:A100:1:8:1"
    problems = check(ClusterConfig(hosts=("10.0.0.1",)), test, CATALOGUE)
    assert problems and "framework 'in_container'" in problems[0]
