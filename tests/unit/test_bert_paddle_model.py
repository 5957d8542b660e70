"""The bert/paddle model and data: BERT-large has Hugging Face BertForMaskedLM's 335,174,458
parameters (built with Paddle's LazyGuard, which declares every parameter without allocating
it), the CI size runs forward/backward, the loss averages over masked positions only, and
the data reader masks and checks like the bert/pytorch case.

Paddle runs in one child process (module fixture): importing it into the pytest process after
TensorFlow crashes that process (see the case README). data.py needs only numpy."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "training" / "benchmarks" / "bert" / "paddle"
for path in (str(REPO / "training" / "benchmarks"), str(REPO)):
    if path not in sys.path:
        sys.path.insert(0, path)

from driver import DataError  # noqa: E402


def load(name: str) -> ModuleType:
    """The case's paddle-free module ``name``.py under a name no other case uses."""
    spec = importlib.util.spec_from_file_location(f"bert_paddle_{name}", CASE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


arch = load("arch")   # numbers only
data = load("data")   # numpy + driver

PROBE = textwrap.dedent("""
    import json
    import paddle
    import arch
    import model as bert

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
                                 "PYTHONPATH": f"{CASE}:{REPO / 'training' / 'benchmarks'}"})
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_bert_large_has_the_published_parameter_count(probe: dict) -> None:
    assert probe["large"] == probe["large_formula"] == 335_174_458
    shapes = probe["shapes"]
    assert len([s for s in shapes.values() if s == [1024, 4096]]) == 24   # FFN in
    assert len([s for s in shapes.values() if s == [1024, 1024]]) == 24 * 4 + 1  # QKVO + MLM
    assert [30522, 1024] in shapes.values() and [512, 1024] in shapes.values()
    assert probe["tied"]


def test_parameter_formula_adds_up() -> None:
    h, i, v, layers = 1024, 4096, 30522, 24
    embeddings = v * h + 512 * h + 2 * h + 2 * h
    per_layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h
    mlm_head = h * h + h + 2 * h + v
    assert embeddings + layers * per_layer + mlm_head == 335_174_458


def test_tiny_runs_forward_and_backward(probe: dict) -> None:
    assert probe["tiny"] == probe["tiny_formula"]
    assert probe["logits"] == [2, 16, 1024] and probe["grads"]


def test_loss_averages_over_masked_positions_only(probe: dict) -> None:
    assert probe["loss"] == pytest.approx(probe["manual"], rel=1e-5)
    assert probe["uniform"] == pytest.approx(np.log(4096), rel=1e-6)
    assert 0 <= probe["correct"][0] <= probe["correct"][1] == 2


def test_training_flops_formula() -> None:
    cfg = arch.PRESETS["large"]
    n = 24 * (4 * 1024**2 + 2 * 1024 * 4096) + 1024**2 + 1024 * 30522
    assert arch.matmul_params(cfg) == n
    assert arch.train_flops_per_sequence(cfg, 512) == 6 * n * 512 + 12 * 24 * 1024 * 512**2
    assert arch.parameter_count(cfg) == 335_174_458


def test_case_yaml_states_the_full_size_numbers() -> None:
    meta = yaml.safe_load((CASE / "case.yaml").read_text())
    large = arch.PRESETS["large"]
    assert meta["work_unit"] == "samples"
    assert meta["full_size"] == {"params": arch.parameter_count(large),
                                 "flops_per_unit": arch.train_flops_per_sequence(large, 512)}


def test_presets_are_consistent() -> None:
    assert arch.PRESETS["large"] == arch.BertConfig()
    assert all(cfg.problems() == [] for cfg in arch.PRESETS.values())
    assert "hidden_size 10 is not a multiple of num_heads 3" in \
        arch.BertConfig(hidden_size=10, num_heads=3).problems()


# ---------------------------------------------------------------- data.py (numpy only)


def write_dataset(root: Path, rows: np.ndarray, vocab: list[str]) -> None:
    (root / "train").mkdir(parents=True)
    (root / "eval").mkdir()
    (root / "vocab.txt").write_text("".join(f"{t}\n" for t in vocab))
    np.save(root / "train" / "shard_00000.npy", rows)
    np.save(root / "eval" / "shard_00000.npy", rows[:4])


VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(20)]


def sample_rows(n: int = 12, seq: int = 10) -> np.ndarray:
    rng = np.random.default_rng(0)
    rows = np.zeros((n, seq), np.uint16)
    for r in range(n):
        rows[r, :8] = [2, *rng.integers(5, 25, 3), 3, *rng.integers(5, 25, 2), 3]
    return rows


def test_dataset_opens_and_masks_like_bert(tmp_path: Path) -> None:
    write_dataset(tmp_path, sample_rows(), VOCAB)
    dataset = data.open_dataset(tmp_path, vocab_size=30, max_positions=16)
    assert (len(dataset.train), len(dataset.eval), dataset.seq_len) == (12, 4, 10)
    batch = data.mask_rows(dataset.train.rows(np.arange(12)), dataset,
                           np.random.default_rng(1))
    rows = sample_rows().astype(np.int64)
    chosen = batch.labels != data.IGNORE
    assert not chosen[np.isin(rows, [0, 2, 3])].any()          # specials never masked
    assert (batch.labels[chosen] == rows[chosen]).all()
    assert (batch.input_ids[~chosen] == rows[~chosen]).all()
    assert batch.attention_mask.tolist()[0] == [1] * 8 + [0, 0]
    assert batch.token_type_ids.tolist()[0] == [0] * 5 + [1] * 3 + [0, 0]


def test_train_batches_split_each_global_batch_across_ranks(tmp_path: Path) -> None:
    write_dataset(tmp_path, sample_rows(), VOCAB)
    dataset = data.open_dataset(tmp_path, vocab_size=30, max_positions=16)
    per_rank = [list(data.train_batches(dataset, 4, r, 2, seed=3, epoch=1)) for r in (0, 1)]
    assert [len(b) for b in per_rank] == [3, 3]
    assert all(b.input_ids.shape == (2, 10) for batches in per_rank for b in batches)
    evals = [data.eval_batches(dataset, 2, r, 2, seed=5, max_rows=0) for r in (0, 1)]
    assert sum(len(b.input_ids) for batches in evals for b in batches) == 4


@pytest.mark.parametrize("damage, message", [
    (lambda root: (root / "vocab.txt").unlink(), "vocab.txt is missing"),
    (lambda root: (root / "vocab.txt").write_text("a\nb\n"), "lacks the special tokens"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros((3,), np.int32)),
     "expected a non-empty 2-D integer array"),
    (lambda root: (root / "train" / "shard_00000.npy").write_bytes(b"junk"),
     "is not a readable .npy array"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros((3, 12), np.int32)),
     "different sequence lengths"),
])
def test_malformed_dataset_is_reported(tmp_path: Path, damage, message: str) -> None:
    write_dataset(tmp_path, sample_rows(), VOCAB)
    damage(tmp_path)
    with pytest.raises(DataError, match=message):
        data.open_dataset(tmp_path, vocab_size=30, max_positions=16)


def test_token_ids_outside_the_vocabulary_are_reported(tmp_path: Path) -> None:
    rows = sample_rows()
    rows[0, 1] = 99
    write_dataset(tmp_path, rows, VOCAB)
    dataset = data.open_dataset(tmp_path, vocab_size=30, max_positions=16)
    with pytest.raises(DataError, match="outside vocab.txt's 25 tokens"):
        list(data.train_batches(dataset, 12, 0, 1, seed=0, epoch=1))
