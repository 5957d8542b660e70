"""llama2_7b / DeepSpeed: Llama-2-7B's published size, FLOPs formula, RoPE, causality, data."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "training" / "benchmarks" / "llama2_7b" / "deepspeed"
for path in (REPO / "training" / "benchmarks", REPO):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


def load(name: str):
    """The case's module by path, under its own (unique across cases) name."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, CASE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


llama_model = load("llama_model")
llama_data = load("llama_data")
from driver.errors import ConfigError, DataError  # noqa: E402

SEVEN_B = llama_model.PRESETS["7b"]


def meta_llama(cfg=SEVEN_B):
    with torch.device("meta"):
        return llama_model.LlamaForCausalLM(cfg)


# ---------------------------------------------------------------- model


def test_7b_preset_is_the_published_llama_2_7b() -> None:
    assert (SEVEN_B.num_layers, SEVEN_B.hidden_size, SEVEN_B.num_heads, SEVEN_B.num_kv_heads,
            SEVEN_B.intermediate_size, SEVEN_B.vocab_size, SEVEN_B.max_seq_len,
            SEVEN_B.rms_norm_eps, SEVEN_B.rope_theta) == \
        (32, 4096, 32, 32, 11008, 32000, 4096, 1e-5, 10000.0)


def test_llama_2_7b_has_its_published_parameter_count() -> None:
    net = meta_llama()
    assert llama_model.count_parameters(net) == 6_738_415_616
    assert all(p.device.type == "meta" for p in net.parameters())
    assert net.lm_head.weight is not net.embed_tokens.weight  # untied
    assert not any(isinstance(m, torch.nn.Linear) and m.bias is not None for m in net.modules())


def test_matmul_params_are_every_linear_weight() -> None:
    net = meta_llama()
    linear = sum(m.weight.numel() for m in net.modules() if isinstance(m, torch.nn.Linear))
    # all parameters less the input embedding and the 65 RMSNorm weight vectors
    assert llama_model.matmul_params(SEVEN_B) == linear == \
        6_738_415_616 - 32000 * 4096 - 65 * 4096 == 6_607_077_376


def test_train_flops_per_token_is_6n_plus_the_attention_term() -> None:
    assert llama_model.train_flops_per_token(SEVEN_B, 4096) == \
        6 * 6_607_077_376 + 12 * 32 * 4096 * 4096 == 46_084_915_200


def test_grouped_query_attention_shapes_count() -> None:
    cfg = dataclasses.replace(llama_model.PRESETS["tiny"], num_kv_heads=2)
    net = llama_model.LlamaForCausalLM(cfg)
    linear = sum(m.weight.numel() for m in net.modules() if isinstance(m, torch.nn.Linear))
    assert llama_model.matmul_params(cfg) == linear
    assert net(torch.randint(0, cfg.vocab_size, (2, 8))).shape == (2, 8, cfg.vocab_size)


def test_rope_makes_scores_depend_on_relative_position_only() -> None:
    cfg = SEVEN_B
    cos, sin = llama_model.rope_tables(cfg, 64, torch.device("cpu"))
    torch.manual_seed(0)
    q, k = torch.randn(cfg.head_dim), torch.randn(cfg.head_dim)

    def score(i: int, j: int) -> float:
        return float(llama_model.apply_rope(q, cos[i], sin[i]) @
                     llama_model.apply_rope(k, cos[j], sin[j]))
    assert score(5, 2) == pytest.approx(score(40, 37), rel=1e-4)
    assert score(5, 2) != pytest.approx(score(5, 4), rel=1e-3)
    assert torch.allclose(llama_model.apply_rope(q, cos[0], sin[0]), q)


def test_rms_norm() -> None:
    norm = llama_model.RMSNorm(4, 1e-5)
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
    expected = x / torch.sqrt((x**2).mean() + 1e-5)
    torch.testing.assert_close(norm(x), expected)


def test_causal_a_token_never_sees_later_tokens() -> None:
    cfg = llama_model.PRESETS["tiny"]
    torch.manual_seed(0)
    net = llama_model.LlamaForCausalLM(cfg).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, 12))
    changed = ids.clone()
    changed[0, 8:] = (changed[0, 8:] + 1) % cfg.vocab_size
    a, b = net(ids), net(changed)
    torch.testing.assert_close(a[:, :8], b[:, :8])
    assert not torch.allclose(a[:, 8:], b[:, 8:])


def test_activation_checkpointing_gives_the_same_gradients() -> None:
    cfg = llama_model.PRESETS["tiny"]
    ids = torch.randint(0, cfg.vocab_size, (2, 10))
    grads = []
    for ckpt in (False, True):
        torch.manual_seed(0)
        net = llama_model.LlamaForCausalLM(cfg, activation_checkpointing=ckpt)
        llama_model.causal_lm_loss(net(ids[:, :-1]), ids[:, 1:]).backward()
        grads.append(net.layers[0].mlp.up_proj.weight.grad)
    torch.testing.assert_close(grads[0], grads[1])


# ---------------------------------------------------------------- data


def write_dataset(root: Path, train_tokens: int = 1001, eval_tokens: int = 201) -> Path:
    for split, n in (("train", train_tokens), ("eval", eval_tokens)):
        (root / split).mkdir(parents=True, exist_ok=True)
        np.save(root / split / "shard_00000.npy", (np.arange(n) % 250 + 3).astype(np.uint16))
    return root


def test_windows_are_seq_len_plus_one_and_do_not_overlap(tmp_path: Path) -> None:
    data = llama_data.open_dataset(write_dataset(tmp_path), 10, 259)
    assert (len(data.train), len(data.eval)) == (100, 20)
    w = data.train.take(np.array([0, 1, 99]))
    assert w.shape == (3, 11)
    assert w[1, 0] == w[0, -1] and w[2, -1] == 1000 % 250 + 3


def test_windows_do_not_cross_shards(tmp_path: Path) -> None:
    root = write_dataset(tmp_path)
    np.save(root / "train" / "shard_00001.npy", np.full(25, 7, np.uint16))
    data = llama_data.open_dataset(root, 10, 259)
    assert len(data.train) == 102
    assert (data.train.take(np.array([100, 101])) == 7).all()


def test_micro_batches_split_the_global_batch_over_ranks(tmp_path: Path) -> None:
    data = llama_data.open_dataset(write_dataset(tmp_path), 10, 259)
    per_rank = [list(llama_data.train_micro_batches(data, 8, 2, r, 2, 3, 1)) for r in (0, 1)]
    assert len(per_rank[0]) == len(per_rank[1]) == 2 * 12  # 12 global batches x 2 micro each
    first = np.concatenate(per_rank[0][:2] + per_rank[1][:2])
    order = np.random.default_rng([3, 1]).permutation(100)
    assert np.array_equal(first, data.train.take(order[:8]))


def test_every_rank_runs_the_same_number_of_eval_batches(tmp_path: Path) -> None:
    data = llama_data.open_dataset(write_dataset(tmp_path), 10, 259)
    shares = [llama_data.eval_batches(data, 2, r, 3, 0) for r in range(3)]
    assert [len(s) for s in shares] == [3, 3, 3]             # 20 samples -> 18 used
    assert sum(len(b) for s in shares for b in s) == 18


@pytest.mark.parametrize("breakage, message", [
    (lambda root: (root / "train" / "shard_00000.npy").unlink(), "train has no .npy shards"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros((4, 4), np.int32)),
     "expected a 1-D integer token array"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros(4, np.float32)),
     "expected a 1-D integer token array"),
    (lambda root: (root / "eval" / "shard_00000.npy").write_bytes(b"junk"),
     "is not a readable .npy array"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros(5, np.int32)),
     "no shard holds seq_len \\+ 1 = 11 tokens"),
])
def test_malformed_datasets_fail_with_the_reason(tmp_path: Path, breakage, message) -> None:
    root = write_dataset(tmp_path)
    breakage(root)
    with pytest.raises(DataError, match=message):
        llama_data.open_dataset(root, 10, 259)


def test_missing_data_dir_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="does not exist.*prepare_data.py"):
        llama_data.open_dataset(tmp_path / "nope", 10, 259)


def test_token_ids_beyond_the_vocabulary_fail(tmp_path: Path) -> None:
    data = llama_data.open_dataset(write_dataset(tmp_path), 10, 100)
    with pytest.raises(DataError, match="outside the model's vocab_size 100"):
        llama_data.eval_batches(data, 2, 0, 1, 0)


def test_batching_problems_fail_before_training(tmp_path: Path) -> None:
    data = llama_data.open_dataset(write_dataset(tmp_path), 10, 259)
    llama_data.check_batching(data, 8, 2, 2)
    with pytest.raises(ConfigError, match="does not divide across 3 ranks"):
        llama_data.check_batching(data, 8, 2, 3)
    with pytest.raises(ConfigError, match="4 samples per rank, not a multiple of "
                                          "micro_batch_size 3"):
        llama_data.check_batching(data, 8, 3, 2)
    with pytest.raises(DataError, match="fewer than one global batch of 128"):
        llama_data.check_batching(data, 128, 1, 1)
