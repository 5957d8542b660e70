"""The tpu vendor: its spec sheets (the Cloud TPU pages' figures), the slice names a case key's
chip may carry (``v5p-16``, ``v6e-2x4``) and the one message a slice that does not parse gets,
what the plan refuses (eager PyTorch, not pytorch_xla_<version>; DeepSpeed; nproc above 1;
nnodes off the slice's hosts),
and its sampler without tpu-info."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check
from chipperf.suites.catalogue import Catalogue
from chipperf_runtime.monitors import run_monitor
from chipperf_runtime.vendors import get_vendor
from chipperf_runtime.vendors._tpu_slices import TopologyError, parse_slice
from chipperf_runtime.vendors.base import SamplerUnavailable
from chipperf_runtime.vendors.tpu import ICI_BIDIRECTIONAL, plan_problems, usage_samples

TPU = get_vendor("tpu")


@pytest.mark.parametrize("chip, bf16, int8, fp8, hbm_gib, hbm_gbps", [
    ("v4", 275, 275, None, 32, 1200), ("v5e", 197, 393, None, 16, 819),
    ("v5p", 459, None, 459, 95, 2765), ("v6e", 918, 1836, None, 32, 1638),
    ("v7", 2307, None, 4614, 192, 7380),
])
def test_spec_sheets_carry_the_cloud_tpu_pages_figures(chip, bf16, int8, fp8, hbm_gib,
                                                       hbm_gbps) -> None:
    spec = TPU.chips[chip]
    expected = {k: v * 1e12 for k, v in (("bf16", bf16), ("int8", int8), ("fp8", fp8)) if v}
    assert dict(spec.peak_flops) == expected
    assert (spec.memory_bytes, spec.memory_bandwidth) == (hbm_gib * 2**30, hbm_gbps * 1e9)
    assert spec.source.startswith("https://cloud.google.com/tpu/docs/")
    assert spec.why_missing("fp32").startswith("Cloud TPU pages publish no fp32 peak (has ")
    for dtype in {"bf16", "int8", "fp8"} - set(expected):
        assert spec.missing[dtype]            # what is not on the page says so


def test_ici_is_per_chip_bidirectional_where_a_page_gives_it() -> None:
    assert ICI_BIDIRECTIONAL == {"v5e": 400e9, "v5p": 1200e9, "v6e": 800e9, "v7": 1200e9}


@pytest.mark.parametrize("text, chips, hosts, shape", [
    ("v5p", 1, 1, None), ("v5p-16", 8, 2, None), ("v4-8", 4, 1, None),
    ("v5litepod-8", 8, 1, None), ("v6e-16", 16, 2, None), ("V6E-1", 1, 1, None),
    ("v5p-2x2x1", 4, 1, (2, 2, 1)), ("v5p-4x4x4", 64, 16, (4, 4, 4)),
    ("v6e-2x4", 8, 1, (2, 4)), ("v5e-1x1", 1, 1, (1, 1)), ("v7-2x2x2", 8, 2, (2, 2, 2)),
    ("tpu7x-2x2x1", 4, 1, (2, 2, 1)),
])
def test_slice_names_parse_to_chips_hosts_and_shape(text, chips, hosts, shape) -> None:
    tpu_slice = parse_slice(text)
    assert (tpu_slice.chips, tpu_slice.hosts, tpu_slice.shape) == (chips, hosts, shape)


@pytest.mark.parametrize("text, why", [
    ("v9-8", "no TPU generation in it"), ("2x2x1", "no TPU generation in it"),
    ("v5p-15", "counts TensorCores (2 per chip: an even number)"),
    ("v5p-2x2", "v5p topologies are 3 positive whole numbers joined by 'x'"),
    ("v6e-2x0", "v6e topologies are 2 positive whole numbers"),
    ("v5e-0", "counts chips"), ("v7-8", "v7 is named by topology (e.g. v7-2x2x1)"),
    ("v5p_16", "no TPU generation in it"),
])
def test_a_slice_that_does_not_parse_names_itself_and_the_forms(text, why) -> None:
    with pytest.raises(TopologyError) as error:
        parse_slice(text)
    assert str(error.value).startswith(f"TPU slice {text!r} does not parse: ")
    assert why in str(error.value)


def test_a_slice_name_finds_its_generations_spec_sheet() -> None:
    assert TPU.chip("v5p-16") is TPU.chips["v5p"] and TPU.chip("v6e-2x4") is TPU.chips["v6e"]
    assert TPU.chip("v9-8") is None


def test_plan_refuses_what_the_tpu_path_cannot_run() -> None:
    assert plan_problems("v5e-1", "tensorflow2", 1, 1) == []
    assert plan_problems("v5p-16", "tensorflow2", 2, 1) == []
    assert plan_problems("v5p", "pytorch", 1, 1) == [
        "vendor 'tpu' runs tensorflow2, jax, pytorch_xla cases only: PyTorch reaches TPUs only "
        "through torch_xla (PJRT), and this is eager PyTorch: use framework 'pytorch_xla_2.9' "
        "(torch 2.9.0 with torch_xla 2.9.0, the newest torch_xla; chipperf's eager torch 2.13 "
        "has none): use a tensorflow2 or jax or pytorch_xla case"]
    assert plan_problems("v5e-1", "pytorch_xla", 1, 1) == []
    assert plan_problems("v5p-16", "pytorch_xla", 1, 2)[0] == (
        "nproc=2: one process per host drives all of its TPU chips (torch_xla, one process per "
        "host): use nproc=1")
    assert plan_problems("v5p", "deepspeed", 1, 1)[0].startswith(
        "vendor 'tpu' runs tensorflow2, jax, pytorch_xla cases only: DeepSpeed has no TPU "
        "accelerator")
    assert plan_problems("v5p-16", "tensorflow2", 1, 4) == [
        "nproc=4: one process per host drives all of its TPU chips (TPUStrategy): use nproc=1",
        "TPU slice 'v5p-16' is 8 chips on 2 host(s), but nnodes=1: use nnodes=2"]
    assert "TensorFlow is not supported on TPU7x" in plan_problems("v7-2x2x1", "tensorflow2", 1, 1)[0]


def test_jax_runs_on_every_generation_one_process_per_host() -> None:
    assert plan_problems("v5p", "jax", 1, 1) == []
    assert plan_problems("v7-2x2x1", "jax", 1, 1) == []       # TPU7x: JAX, not TensorFlow
    assert plan_problems("v5p-16", "jax", 1, 2) == [
        "nproc=2: one process per host drives all of its TPU chips (JAX, one process per host): "
        "use nproc=1",
        "TPU slice 'v5p-16' is 8 chips on 2 host(s), but nnodes=1: use nnodes=2"]


def test_a_bad_slice_in_a_case_key_is_one_plan_problem(tmp_path: Path) -> None:
    root = tmp_path / "training"
    for rel in ("benchmarks/resnet50/tensorflow2/run_pretraining.py",
                "tpu/resnet50-tensorflow2/config/config_v5p-15x1x1.py",
                "tpu/docker_image/tensorflow2_2.20/Dockerfile"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    key = CaseKey.parse("resnet50:tensorflow2_2.20:v5p-15:1:1:1")
    test = TestConfig(vendor="tpu", cases=(CaseEntry(key, "/d"),),
                      result_root=str(tmp_path / "result"))
    problems = check(ClusterConfig(hosts=("10.0.0.1",)), test, Catalogue.scan(root),
                     where="test_conf.py")
    assert [p for p in problems if "TPU slice" in p] == [
        "test_conf.py: CASES['resnet50:tensorflow2_2.20:v5p-15:1:1:1']: TPU slice 'v5p-15' does "
        "not parse: the number in a v5p accelerator type counts TensorCores (2 per chip: an even "
        "number): write a generation (v4, v5e, v5p, v6e, v7), an accelerator type (v4-8, v5p-16, "
        "v5litepod-8, v6e-8) or a generation and topology (v5p-2x2x1, v6e-2x4, v7-2x2x1)"]


def test_libtpu_usage_becomes_monitor_samples() -> None:
    class Usage:   # the fields of tpu_info.metrics.Usage
        def __init__(self, device_id: int, memory_usage: int, total_memory: int,
                     duty_cycle_pct: float) -> None:
            self.device_id, self.memory_usage = device_id, memory_usage
            self.total_memory, self.duty_cycle_pct = total_memory, duty_cycle_pct

    # tpu-info's published v6e example: 18.45 GiB of 31.25 GiB, duty cycle 100 %.
    used, total = int(18.45 * 2**30), int(31.25 * 2**30)
    assert usage_samples([Usage(0, used, total, 100.0)]) == [
        {"index": 0, "mem_used_bytes": used, "mem_total_bytes": total, "util_pct": 100.0}]


def test_without_tpu_info_the_monitor_writes_one_unavailable_line(tmp_path: Path) -> None:
    with pytest.raises(SamplerUnavailable, match=r"tpu-info is not importable \(pip install "
                                                  r"tpu-info; it reads libtpu's runtime metrics\)"):
        TPU.accelerator_sampler()
    run_monitor(tmp_path, 0.2, 0.5, "tpu")
    lines = [json.loads(x) for x in (tmp_path / "tpu_monitor.log").read_text().splitlines()]
    assert "tpu-info is not importable" in lines[0]["unavailable"]
