"""The bert_large inference case end to end on this machine (CI-sized: a 2-layer BERT on the
licence texts Debian ships in /usr/share/common-licenses, WordPiece vocabulary built at prepare
time), through eager, ONNX Runtime and torch.compile, plus bad inputs and a drifting engine."""

from __future__ import annotations

import subprocess
import sys
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

CASE_DIR = BENCH / "bert_large" / "pytorch"
ENTRY = CASE_DIR / "run_inference.py"
CONFIG = CONFIGS / "bert_large"
LABEL = "bert_large:pytorch_2.13"
TEXT_SOURCE = Path("/usr/share/common-licenses")
CI = ["hidden_size=64", "num_layers=2", "num_heads=2", "intermediate_size=128", "seq_len=32",
      "words_per_item=20", "batch_size=8", "max_items=32", "latency_queries=8",
      "latency_warmup=2", "warmup_batches=1",
      "loadgen_min_duration_ms=1"]   # LoadGen's minimum: the query counts alone decide


@pytest.fixture(autouse=True)
def _cpu_vendor_device(monkeypatch):
    cpu_vendor(monkeypatch)


@pytest.fixture(scope="module")
def texts(tmp_path_factory) -> Path:
    assert TEXT_SOURCE.is_dir(), f"{TEXT_SOURCE} (Debian's base-files) is the CI text"
    out = tmp_path_factory.mktemp("licenses")
    subprocess.run([sys.executable, str(CASE_DIR / "prepare_text.py"), str(TEXT_SOURCE),
                    str(out)], check=True, timeout=300)
    return out


def run_case(data: Path, out: Path, *sets: str):
    env = entry_env(CHIPPERF_CASE=LABEL, CHIPPERF_VENDOR="cpu", CHIPPERF_DEVICE="cpu")
    return run_entry(ENTRY, argv(CONFIG, data, out, *CI, *sets), env)


def run_in_process(data: Path, out: Path, *sets: str) -> int:
    module = load_entry(ENTRY, "bert_large_run_inference")
    return module.main(module.CASE, argv(CONFIG, data, out, *CI, *sets))


@pytest.fixture(autouse=True)
def _restore_engine_registry():
    with engine_registry_kept():
        yield


@pytest.mark.parametrize("engine,precision", [("eager", "fp32"), ("onnxruntime", "fp32"),
                                              ("compile", "fp32"), ("eager", "bf16")])


def test_engine_runs_end_to_end_within_its_bound(texts, tmp_path, engine, precision) -> None:
    proc, events = run_case(texts, tmp_path, f"engine={engine}", f"precision={precision}")
    f = finished_of(proc, events)
    assert (f["engine"], f["precision"]) == (engine, precision)
    assert f["work_unit"] == "items" and f["work_done"] == 32
    assert 0 < f["throughput"]["raw"] <= f["throughput"]["pure_compute"]
    assert f["latency_ms"]["count"] == 8
    evaluation = events[5].value
    assert evaluation["scored"] > 32  # masked tokens, several per sequence
    assert evaluation["reference_distinct_top1"] > 1  # predictions are not all one token
    ref = f["reference"]
    assert ref["within_bound"] and ref["nonfinite_outputs"] == 0
    assert (ref["max_abs_diff"] == 0.0) == ((engine, precision) == ("eager", "fp32"))
    assert f["metric"]["name"] == "top1_agreement"
    assert f["metric"]["value"] >= f["metric"]["target"] and f["converged"] is True
    assert events[2].value["data"]["vocab_size"] > 1000


LARGE = {"hidden_size": 1024, "num_layers": 24, "num_heads": 16, "intermediate_size": 4096,
         "max_position": 512}
SMALL = {"hidden_size": 64, "num_layers": 2, "num_heads": 2, "intermediate_size": 128,
         "max_position": 512}


def built_model(shape: dict, vocab: int = 30522) -> torch.nn.Module:
    """The network the case builds for a vocabulary of ``vocab`` tokens (vocab_size: null)."""
    module = load_entry(ENTRY, "bert_large_run_inference")
    data = SimpleNamespace(tokenizer=SimpleNamespace(vocab=dict.fromkeys(range(vocab), 0)))
    return module.CASE.build_model({"vocab_size": None, **shape}, data)


def test_model_is_transformers_bert_for_masked_lm_of_bert_large_size() -> None:
    from transformers import BertForMaskedLM

    from chipperf_runtime.inference.models.hf_text import parameter_count

    with torch.device("meta"):
        model = built_model(LARGE)
    assert isinstance(model, BertForMaskedLM)
    c = model.config
    assert (c.num_hidden_layers, c.hidden_size, c.num_attention_heads, c.intermediate_size,
            c.vocab_size, c.max_position_embeddings, c.type_vocab_size) == \
        (24, 1024, 16, 4096, 30522, 512, 2)
    assert parameter_count(model) == 335_174_458   # bert-large-uncased's MLM, no pooler
    assert model.cls.predictions.decoder.weight is model.bert.embeddings.word_embeddings.weight


def expected_flops(shape: dict, vocab: int, s: int) -> int:
    """2 per multiply-add of the projections, the attention products and the MLM head."""
    h, f, n = shape["hidden_size"], shape["intermediate_size"], shape["num_layers"]
    per_layer = 2 * s * (4 * h * h + 2 * h * f) + 2 * 2 * s * s * h
    return n * per_layer + 2 * s * (h * h + h * vocab)


def test_flops_per_item_is_bert_larges_at_128_tokens() -> None:
    from chipperf_runtime.inference.measure import forward_flops

    with torch.device("meta"):
        model = built_model(LARGE)
    ids = torch.zeros(1, 128, dtype=torch.long, device="meta")
    # transformers reads a mask's values (to skip an all-ones one), which a meta tensor has
    # not: no mask here, the same products (the next test counts with a padded mask)
    flops = forward_flops(model.eval(), [ids, None])
    assert flops == pytest.approx(expected_flops(LARGE, 30522, 128), rel=1e-6)


def test_flops_are_counted_the_same_with_a_padded_mask() -> None:
    """What the runner does: count on the device, the first item of the data (padded)."""
    from chipperf_runtime.inference.measure import forward_flops

    model = built_model(SMALL, vocab=200).eval()
    ids = torch.randint(5, 200, (1, 32))
    mask = torch.ones_like(ids)
    mask[0, 20:] = 0
    assert forward_flops(model, [ids, mask]) == expected_flops(SMALL, 200, 32)


def test_padding_does_not_change_the_real_tokens_logits() -> None:
    torch.manual_seed(0)
    model = built_model(SMALL, vocab=200).eval()
    ids = torch.randint(5, 200, (1, 8))
    padded = torch.cat([ids, torch.zeros(1, 4, dtype=torch.long)], dim=1)
    mask = torch.cat([torch.ones(1, 8), torch.zeros(1, 4)], dim=1).long()
    with torch.no_grad():
        short, long = model(ids, torch.ones_like(ids)), model(padded, mask)
    assert short.shape == (1, 8, 200)
    torch.testing.assert_close(short, long[:, :8], atol=1e-5, rtol=1e-5)


def test_checkpoint_in_hugging_face_names_scores_masked_tokens(texts, tmp_path) -> None:
    vocab = len((texts / "vocab.txt").read_text(encoding="utf-8").splitlines())
    torch.manual_seed(1)
    state = built_model(SMALL, vocab).state_dict()
    state["bert.pooler.dense.weight"] = torch.zeros(64, 64)  # BertForPreTraining's extras
    state["cls.seq_relationship.weight"] = torch.zeros(2, 64)  # are ignored
    del state["cls.predictions.decoder.bias"]  # saved once, as cls.predictions.bias: tied
    torch.save(state, tmp_path / "mlm.pt")
    proc, events = run_case(texts, tmp_path, f"checkpoint={tmp_path / 'mlm.pt'}",
                            "accuracy_target=0.0")
    f = finished_of(proc, events)
    assert f["metric"]["name"] == "top1_accuracy"
    assert f["metric"]["value"] == events[5].value["top1_vs_labels"]


@pytest.mark.parametrize("sets,message", [
    (["engine=onnxruntime", "precision=fp16"], "cannot run precision 'fp16' on cpu"),
    (["vocab_size=100"], "vocab_size 100 is smaller than the vocabulary"),
    (["seq_len=1024"], "seq_len 1024 exceeds max_position 512"),
    (["num_heads=3"], "hidden_size must be a multiple of num_heads"),
    (["vocab_file=/nonexistent/vocab.txt"], "vocabulary /nonexistent/vocab.txt not found"),
    (["checkpoint=/nonexistent.pt"], "checkpoint /nonexistent.pt does not exist"),
    (["engine=onnxruntime-trt"], "needs an NVIDIA GPU (TensorRT), and vendor cpu names device cpu"),
])
def test_bad_input_is_a_clear_error(texts, tmp_path, capsys, monkeypatch, sets, message) -> None:
    monkeypatch.setenv("CHIPPERF_CASE", LABEL)
    assert run_in_process(texts, tmp_path, *sets) == 2
    err = capsys.readouterr().err
    assert f"chipperf inference case {LABEL}: error:" in err and message in err


def test_data_dir_without_text_is_a_clear_error(tmp_path) -> None:
    (tmp_path / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n")
    proc, _ = run_case(tmp_path, tmp_path)
    assert proc.returncode == 2 and "no text found" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_drifting_engine_fails_the_accuracy_check(texts, tmp_path, capsys) -> None:
    from chipperf_runtime.inference.engines import register
    from chipperf_runtime.inference.engines.torch_engines import EagerEngine

    class Noisy(EagerEngine):
        """Adds seeded noise of 5% of the output's scale."""

        def prepare(self, model, example_inputs, precision):
            run = super().prepare(model, example_inputs, precision)
            gen = torch.Generator().manual_seed(0)

            def noisy(*xs):
                out = run(*xs)
                return out + 0.05 * out.abs().max() * torch.randn(out.shape, generator=gen)

            return noisy

    register("noisy", lambda options: Noisy(options, name="noisy"))
    assert run_in_process(texts, tmp_path, "engine=noisy") == 0
    events, _ = parse_lines(capsys.readouterr().out.splitlines())
    finished = events[-1].value
    assert finished["reference"]["within_bound"] is False
    assert finished["converged"] is False
