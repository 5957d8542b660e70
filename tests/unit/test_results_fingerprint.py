"""Every result carries its workload; compare pairs results only of one workload."""

from __future__ import annotations

from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.compute.fingerprint import describe, differences, fingerprint
from chipperf.results.compute.schema import CaseResult, Fingerprint
from chipperf.results.render.compare import compare, comparison_console
from chipperf.results.report import summarize
from chipperf_runtime.workload import Workload
from chipperf_runtime.workload import from_config as workload_from_config

RESNET = (("global_batch_size", 256), ("image_size", 224), ("dtype", "bf16"))


def test_chipperf_training_config():
    fp = fingerprint("chipperf", "resnet50", "pytorch",
                     {"case_version": "sha256:0123abcd", "config": dict(RESNET)},
                     data_dir="/data/imagenet/", harness_version="0.1.0")
    assert fp == Fingerprint(case="chipperf:resnet50/pytorch", case_version="sha256:0123abcd",
                             framework="pytorch", global_batch=256, image_size=224,
                             dataset="imagenet", precision="bf16")
    assert describe(fp).startswith("case=chipperf:resnet50/pytorch, case_version=sha256:")


def test_the_cases_typed_workload_wins_over_its_config():
    """SUBMIT_INFO's ``workload`` (what the case states) is read as it is; the config is read
    only for a run directory without it."""
    submit = {"config": dict(RESNET), "workload": Workload(
        global_batch=64, seq_len=None, image_size=32, precision="fp32").as_dict()}
    fp = fingerprint("chipperf", "resnet50", "pytorch", submit)
    assert (fp.global_batch, fp.seq_len, fp.image_size, fp.precision) == (64, None, 32, "fp32")


def test_the_typed_workload_is_the_configs_reading_for_a_chipperf_case():
    """The case builds its block with the same reading the engine falls back to: a run
    directory from before the block and one after it have one fingerprint."""
    submit = {"config": dict(RESNET)}
    stated = {**submit, "workload": workload_from_config(dict(RESNET)).as_dict()}
    assert fingerprint("chipperf", "m", "pytorch", stated) == \
        fingerprint("chipperf", "m", "pytorch", submit)


def test_a_workload_field_of_the_wrong_type_is_not_said():
    assert Workload.read({"global_batch": "256", "seq_len": True, "image_size": 224.0,
                          "precision": 16}) == Workload(image_size=224)
    assert Workload.read(["not", "a", "mapping"]) is None


def test_without_a_case_version_the_harness_version_stands_for_it():
    assert fingerprint("chipperf", "m", "pytorch", {}, harness_version="0.2").case_version == \
        "chipperf 0.2"
    assert fingerprint("flagperf", "m", "pytorch", {}).case_version is None


def test_flagperf_per_chip_batch_switches_and_sizes():
    config = {"train_batch_size": 4, "gradient_accumulation_steps": 8, "seq_length": 2048,
              "fp16": True, "data_dir": "/raid/dataset/llama"}
    fp = fingerprint("flagperf", "llama2_7b", "deepspeed", {"config": config}, chips=16)
    assert (fp.global_batch, fp.seq_len, fp.precision, fp.dataset) == (512, 2048, "fp16", "llama")
    assert fingerprint("flagperf", "m", "f", {"config": {"amp": False}}).precision == "fp32"
    assert fingerprint("flagperf", "m", "f", {"config": {"input_size": [384, 384]}}).image_size \
        == 384
    assert fingerprint("flagperf", "m", "f", {"config": {"train_batch_size": 4}}).global_batch \
        is None                                     # chips unknown: not guessed


def test_flagperf_inference_finish_info():
    fp = fingerprint("flagperf", "resnet50", "pytorch", None,
                     finish_info={"batchsize": 256, "precision": "fp16"})
    assert (fp.global_batch, fp.precision) == (256, "fp16")


def test_differences_name_each_field():
    a = Fingerprint(case="chipperf:resnet50/pytorch", global_batch=256, dataset="imagenet")
    b = Fingerprint(case="chipperf:resnet50/pytorch", global_batch=64)
    assert differences(a, b) == ["global_batch 256 vs 64", "dataset imagenet vs ?"]
    assert differences(a, a) == []


def _run(path, batch, model="resnet50", rounds=(SynthRound(1000.0), SynthRound(1010.0))):
    case = SynthCase(model=model, nnodes=1, nproc=2, seconds=4, rounds=rounds,
                     config=(("global_batch_size", batch), ("image_size", 224)))
    return summarize(write_run(path, [case]))


def test_every_case_carries_its_fingerprint_into_summary_json(tmp_path):
    summary = _run(tmp_path / "a", 256)
    (case,) = summary.cases
    assert case.fingerprint.global_batch == 256 and case.fingerprint.image_size == 224
    assert case.fingerprint.case_version == "chipperf 0.1.0"
    again = CaseResult.from_dict(case.to_dict())
    assert again.fingerprint == case.fingerprint


def test_compare_same_workload_one_row_different_workload_two_rows(tmp_path):
    a, b, c = _run(tmp_path / "a", 256), _run(tmp_path / "b", 256), _run(tmp_path / "c", 32)
    same = compare([a, b])
    assert [r.match for r in same.rows if r.figure == "throughput_raw"] == ["resnet50:pytorch 1x2"]
    assert same.notes == ()
    split = compare([a, c])
    assert [r.match for r in split.rows if r.figure == "throughput_raw"] == [
        "resnet50:pytorch 1x2 [workload A]", "resnet50:pytorch 1x2 [workload B]"]
    text = comparison_console(split)
    assert "note: resnet50:pytorch 1x2: not one workload, so not compared in one row" in text
    assert "A and B differ in global_batch 256 vs 32." in text


def test_a_megatron_core_run_and_a_native_run_are_two_workloads(tmp_path):
    """The ``implementation`` knob (llmtrain's Megatron-Core build) enters the fingerprint's
    case, so compare puts a Megatron-Core figure and a native one in rows of their own, with a
    note naming the difference; a native run and one from before the knob stay one workload."""
    def run(name, implementation):
        config = (("global_batch_size", 512), ("seq_len", 4096), ("dtype", "bf16")) + \
            ((("implementation", implementation),) if implementation else ())
        return summarize(write_run(tmp_path / name, [SynthCase(
            model="mixtral_8x7B", nnodes=1, config=config)]))
    native, before, megatron = run("a", "native"), run("b", None), run("c", "megatron_core")
    assert megatron.cases[0].fingerprint.case == "chipperf:mixtral_8x7B/pytorch+megatron_core"
    assert native.cases[0].fingerprint == before.cases[0].fingerprint
    split = compare([native, megatron])
    assert [r.match for r in split.rows if r.figure == "throughput_raw"] == [
        "mixtral_8x7B:pytorch 1x2 [workload A]", "mixtral_8x7B:pytorch 1x2 [workload B]"]
    assert "case chipperf:mixtral_8x7B/pytorch vs chipperf:mixtral_8x7B/pytorch+megatron_core" \
        in comparison_console(split)
