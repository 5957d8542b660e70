"""The resnet50 inference case end to end on this machine (CI-sized: 32-pixel crops of the
scikit-learn digits, written as an ImageNet val folder), through two engines and two
precisions, plus every bad input the evaluator can give and an engine that drifts."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from inferrun import (
    BENCH,
    CONFIGS,
    argv,
    cpu_vendor,
    engine_registry_kept,
    entry_env,
    finished_of,
    load_entry,
    run_entry,
)

from chipperf_runtime.perflog import parse_lines

ENTRY = BENCH / "resnet50" / "pytorch" / "run_inference.py"
CONFIG = CONFIGS / "resnet50"
LABEL = "resnet50:pytorch_2.13"
CI = ["image_size=32", "resize_size=32", "batch_size=8", "max_items=32", "latency_queries=8",
      "latency_warmup=2", "warmup_batches=1",
      "loadgen_min_duration_ms=1"]   # LoadGen's minimum: the query counts alone decide


@pytest.fixture(autouse=True)
def _cpu_vendor_device(monkeypatch):
    cpu_vendor(monkeypatch)


def run_case(data: Path, out: Path, *sets: str, vendor: str = "cpu_configuration.yaml"):
    env = entry_env(CHIPPERF_CASE=LABEL, CHIPPERF_VENDOR="cpu", CHIPPERF_DEVICE="cpu")
    return run_entry(ENTRY, argv(CONFIG, data, out, *CI, *sets, vendor_file=vendor), env)


@pytest.fixture(autouse=True)
def _restore_engine_registry():
    with engine_registry_kept():
        yield


@pytest.mark.parametrize("engine,precision", [("eager", "fp32"), ("onnxruntime", "fp32"),
                                              ("eager", "bf16")])


def test_engine_runs_end_to_end_within_its_bound(digits, tmp_path, engine, precision) -> None:
    proc, events = run_case(digits, tmp_path, f"engine={engine}", f"precision={precision}")
    f = finished_of(proc, events)
    assert (f["engine"], f["precision"], f["dtype"], f["device"]) == (engine, precision,
                                                                       precision, "cpu")
    assert f["work_unit"] == "items" and f["work_done"] == 32 and f["world_size"] == 1
    assert f["throughput"]["unit"] == "items/s"
    assert 0 < f["throughput"]["raw"] <= f["throughput"]["pure_compute"]
    assert f["latency_ms"]["count"] == 8
    assert 0 < f["latency_ms"]["p50"] <= f["latency_ms"]["p90"] <= f["latency_ms"]["p99"]
    assert f["metric"]["name"] == "top1_agreement"  # random weights: agreement with fp32 eager
    ref = f["reference"]
    assert ref["within_bound"] and ref["max_abs_diff"] <= ref["bound"]
    if (engine, precision) == ("eager", "fp32"):
        assert ref["max_abs_diff"] == 0.0
    else:
        assert ref["max_abs_diff"] > 0.0  # a different engine or precision really ran
    assert f["converged"] is True
    assert f["flops_per_unit"] > 1e8 and f["peak_memory_bytes"] > 0
    submit = events[1].value
    assert submit["vendor"] == "cpu" and submit["config"]["image_size"] == 32
    assert events[4].time_ms >= events[3].time_ms  # TRAIN_END after TRAIN_START


def built_model(num_classes: int = 1000) -> torch.nn.Module:
    """The network the case builds (the runner seeds torch first)."""
    module = load_entry(ENTRY, "resnet50_run_inference")
    data = SimpleNamespace(classes=[f"class{i}" for i in range(num_classes)])
    return module.CASE.build_model({"num_classes": num_classes}, data)


def test_case_builds_the_trees_resnet50_with_torchvisions_initialisation() -> None:
    from chipperf_runtime.models.resnet import layers, tv_resnet

    net = built_model(10)
    assert type(net) is tv_resnet.ResNet and net.fc.out_features == 10
    assert all(bool((b.bn3.weight == 1).all()) for layer in layers(net) for b in layer)


def test_flops_per_item_is_resnet50s_at_224() -> None:
    from chipperf_runtime.inference.measure import forward_flops

    flops = forward_flops(built_model().eval(), [torch.randn(1, 3, 224, 224)])
    assert flops == pytest.approx(2 * 4.09e9, rel=0.01)  # 4.09 GMACs (torchvision's figure)


def test_checkpoint_weights_score_against_the_labels(digits, tmp_path) -> None:
    torch.manual_seed(1)
    torch.save(built_model().state_dict(), tmp_path / "weights.pt")
    proc, events = run_case(digits, tmp_path, f"checkpoint={tmp_path / 'weights.pt'}",
                            "accuracy_target=0.0", "engine=onnxruntime")
    f = finished_of(proc, events)
    evaluation = events[5].value
    assert f["metric"]["name"] == "top1_accuracy" and f["metric"]["target"] == 0.0
    assert f["metric"]["value"] == evaluation["top1_vs_labels"]
    assert 0.0 <= f["metric"]["value"] <= 1.0 and evaluation["scored"] == 32
    assert f["converged"] is True


def run_in_process(data: Path, out: Path, *sets: str) -> int:
    """The entry's ``main`` in this process (what ``run_inference.py`` calls), for speed."""
    module = load_entry(ENTRY, "resnet50_run_inference")
    return module.main(module.CASE, argv(CONFIG, data, out, *CI, *sets))


@pytest.mark.parametrize("sets,message", [
    (["engine=fastest"], "engine 'fastest' is unknown: set engine to one of"),
    (["engine=onnxruntime", "precision=bf16"],
     "engine 'onnxruntime' cannot run precision 'bf16' on cpu (vendor cpu): set precision to one of fp32"),
    (["engine=eager", "precision=int8"], "cannot run precision 'int8'"),
    (["engine=tensorrt"], "engine 'tensorrt' needs device: cuda"),
    (["device=cuda"], "the configuration says device: cuda, but vendor cpu names device cpu"),
    (["engine=onnxruntime", "onnx_file=/nonexistent/model.onnx"],
     "onnx_file /nonexistent/model.onnx does not exist"),
    (["engine=onnxruntime", "onnx_file=/etc/hostname"], "ONNX Runtime could not load"),
    (["checkpoint=/etc/hostname"], "cannot be read by torch.load"),
    (["batchsize=4", "batch_size=none"], "unknown key 'batchsize'"),
    (["batch_size=64"], "fewer than batch_size 64: lower batch_size"),
])
def test_bad_input_is_a_clear_error(digits, tmp_path, capsys, monkeypatch, sets, message) -> None:
    monkeypatch.setenv("CHIPPERF_CASE", LABEL)
    assert run_in_process(digits, tmp_path, *sets) == 2
    err = capsys.readouterr().err
    assert f"chipperf inference case {LABEL}: error:" in err and message in err


def test_a_device_this_host_lacks_stops_the_case_instead_of_running_on_the_cpu(
        digits, tmp_path, capsys, monkeypatch) -> None:
    if torch.cuda.is_available():
        pytest.skip("this host has a GPU")
    monkeypatch.setenv("CHIPPERF_CASE", LABEL)
    monkeypatch.setenv("CHIPPERF_VENDOR", "nvidia")
    monkeypatch.setenv("CHIPPERF_DEVICE", "cuda")
    assert run_in_process(digits, tmp_path, "engine=eager") == 2
    captured = capsys.readouterr()
    assert ("vendor 'nvidia' names device 'cuda' (CUDA (and ROCm/CUDA-compatible) GPUs), but "
            "torch.cuda.is_available() is False") in captured.err
    assert "FINISHED" not in captured.out and "TRAIN_START" not in captured.out


def test_missing_data_dir_and_vendor_file(tmp_path) -> None:
    """Through the real entry script: exit status 2, one message, no traceback."""
    proc, _ = run_case(tmp_path / "no-data", tmp_path)
    assert proc.returncode == 2 and "does not exist: give the dataset's path" in proc.stderr
    assert f"chipperf inference case {LABEL}: error:" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc, _ = run_case(tmp_path, tmp_path, vendor="acme_configuration.yaml")
    assert proc.returncode == 2 and "acme_configuration.yaml: file not found" in proc.stderr


def test_drifting_engine_fails_the_accuracy_check(digits, tmp_path, capsys) -> None:
    """An engine whose outputs drift 10% from fp32 eager is not converged, even though its
    top-1 answers still agree."""
    from chipperf_runtime.inference.engines import register
    from chipperf_runtime.inference.engines.torch_engines import EagerEngine

    class Drifting(EagerEngine):
        def prepare(self, model, example_inputs, precision):
            run = super().prepare(model, example_inputs, precision)
            return lambda *xs: run(*xs) * 1.1

    register("drifting", lambda options: Drifting(options, name="drifting"))
    assert run_in_process(digits, tmp_path, "engine=drifting", "tolerance.default.fp32=1e-3") == 0
    events, _ = parse_lines(capsys.readouterr().out.splitlines())
    finished = events[-1].value
    assert finished["metric"]["value"] == 1.0                      # same top-1 answers
    assert finished["reference"]["within_bound"] is False          # but 10% off
    assert finished["reference"]["max_abs_diff"] > finished["reference"]["bound"]
    assert finished["converged"] is False


def test_engine_that_fails_on_its_first_queries_is_a_build_error(digits, tmp_path, capsys,
                                                                  monkeypatch) -> None:
    from chipperf_runtime.inference.engines import register
    from chipperf_runtime.inference.engines.torch_engines import EagerEngine

    class Brittle(EagerEngine):
        def prepare(self, model, example_inputs, precision):
            def run(*xs):
                raise RuntimeError("kernel not implemented for this shape")
            return run

    register("brittle", lambda options: Brittle(options, name="brittle"))
    monkeypatch.setenv("CHIPPERF_CASE", LABEL)
    assert run_in_process(digits, tmp_path, "engine=brittle") == 2
    err = capsys.readouterr().err
    assert "engine 'brittle' (fp32) built but failed on its first queries" in err
    assert "kernel not implemented" in err and "try another precision or engine" in err
