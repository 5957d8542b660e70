"""The bert/paddle model: BERT-large has Hugging Face BertForMaskedLM's 335,174,458 parameters
(built with Paddle's LazyGuard, which declares every parameter without allocating it) and
exactly the shapes the shared parameter formula (textlm.bert) counts, the CI size runs
forward/backward, and the loss averages over masked positions only. The formulas and the data
reader, shared with bert/pytorch, are tested in test_textlm.py and test_textlm_shards.py.

Paddle runs in one child process (module fixture): importing it into the pytest process after
TensorFlow crashes that process (see the case README)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import yaml
from casemodules import BENCHMARKS, case_dir

from chipperf_runtime.training.textlm import bert

CASE = case_dir("bert/paddle")

PROBE = textwrap.dedent("""
    import json
    import paddle
    import model as bert
    from chipperf_runtime.training.textlm import bert as arch

    with paddle.LazyGuard():
        large = bert.BertForMaskedLM(arch.PRESETS["large"])
    shapes = {}
    for name, p in large.named_parameters():
        shapes[name] = list(p.shape)
    paddle.seed(0)
    tiny = bert.BertForMaskedLM(arch.PRESETS["tiny"])
    ids = paddle.randint(5, 1024, [2, 16])
    types = paddle.zeros([2, 16], "int64")
    keep = paddle.ones([2, 16], "int64")
    keep[1, 8:] = 0
    labels = paddle.full([2, 16], -100, "int64")
    labels[0, 3] = 7
    labels[1, 2] = 9
    logits = tiny(ids, types, keep)
    loss = bert.mlm_loss(logits, labels)
    loss.backward()
    logp = paddle.nn.functional.log_softmax(logits, axis=-1)
    manual = -(float(logp[0, 3, 7]) + float(logp[1, 2, 9])) / 2
    zero = paddle.zeros([1, 4, 4096])
    print(json.dumps({
        "large": bert.count_parameters(large),
        "large_formula": arch.parameter_count(arch.PRESETS["large"]),
        "shapes": shapes,
        "tied": large.mlm.word_embeddings.weight is large.embeddings.word.weight,
        "tiny": bert.count_parameters(tiny),
        "tiny_formula": arch.parameter_count(arch.PRESETS["tiny"]),
        "logits": list(logits.shape),
        "loss": float(loss), "manual": manual,
        "grads": all(p.grad is not None for p in tiny.parameters()),
        "uniform": float(bert.mlm_loss(zero, paddle.to_tensor([[1, -100, -100, -100]]))),
        "correct": bert.mlm_correct(logits, labels),
    }))
""")


@pytest.fixture(scope="module")
def probe() -> dict:
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=CASE, capture_output=True,
                            text=True, timeout=600,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                                 "PYTHONPATH": f"{CASE}:{BENCHMARKS}"})
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_bert_large_has_the_published_parameter_count(probe: dict) -> None:
    assert probe["large"] == probe["large_formula"] == 335_174_458
    shapes = probe["shapes"]
    assert len([s for s in shapes.values() if s == [1024, 4096]]) == 24   # FFN in
    assert len([s for s in shapes.values() if s == [1024, 1024]]) == 24 * 4 + 1  # QKVO + MLM
    assert [30522, 1024] in shapes.values() and [512, 1024] in shapes.values()
    assert probe["tied"]


def test_tiny_runs_forward_and_backward(probe: dict) -> None:
    assert probe["tiny"] == probe["tiny_formula"]
    assert probe["logits"] == [2, 16, 1024] and probe["grads"]


def test_loss_averages_over_masked_positions_only(probe: dict) -> None:
    assert probe["loss"] == pytest.approx(probe["manual"], rel=1e-5)
    assert probe["uniform"] == pytest.approx(np.log(4096), rel=1e-6)
    assert 0 <= probe["correct"][0] <= probe["correct"][1] == 2


def test_case_yaml_states_the_full_size_numbers() -> None:
    meta = yaml.safe_load((CASE / "case.yaml").read_text())
    large = bert.PRESETS["large"]
    assert meta["work_unit"] == "samples"
    assert meta["full_size"] == {"params": bert.parameter_count(large),
                                 "flops_per_unit": bert.train_flops_per_sequence(large, 512)}
