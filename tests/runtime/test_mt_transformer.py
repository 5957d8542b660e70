"""chipperf_runtime.models.mt_transformer: fairseq's transformer_wmt_en_de_big_t2t from
nn.Transformer (pre-LayerNorm blocks, a LayerNorm after each stack, one shared embedding
table): its parameter count is the architecture's, and it trains and decodes."""

from __future__ import annotations

import torch

from chipperf_runtime.models.mt_transformer import TransformerConfig, TransformerMT, sinusoids


def big_params(vocab: int, d: int = 1024, ffn: int = 4096, layers: int = 6) -> int:
    """Transformer-big with all embeddings shared: the table, per encoder layer self-attention
    (4 d x d + biases) + FFN + 2 LayerNorms, per decoder layer one more attention and LayerNorm,
    and each stack's final LayerNorm."""
    attention, feed, norm = 4 * d * d + 4 * d, 2 * d * ffn + ffn + d, 2 * d
    encoder = layers * (attention + feed + 2 * norm) + norm
    decoder = layers * (2 * attention + feed + 3 * norm) + norm
    return vocab * d + encoder + decoder


def test_transformer_big_has_the_architecture_s_parameter_count() -> None:
    with torch.device("meta"):
        net = TransformerMT(TransformerConfig(vocab_size=32768))
    assert sum(p.numel() for p in net.parameters()) == big_params(32768) == 209_915_904
    assert net.core.encoder.layers[0].norm_first and net.core.decoder.norm is not None


def test_case_yaml_holds_the_full_size_built_on_meta() -> None:
    import yaml
    from casemodules import BENCHMARKS, load_case_module

    from chipperf_runtime.training.hftext.models import count_forward_flops, hf_model

    module = load_case_module("transformer/pytorch", "run_pretraining", "mt_transformer_case")
    full, task = module.FULL_SIZE, module.TEXT_MODEL.task
    with torch.device("meta"):
        net = hf_model("mt_transformer", {**module.PRESETS["big"], "vocab_size": full["vocab_size"]})
    forward = count_forward_flops(net, task, full["seq_len"])
    meta = yaml.safe_load((BENCHMARKS / "transformer" / "pytorch" / "case.yaml").read_text())
    assert meta["full_size"] == {"params": big_params(full["vocab_size"]),
                                 "flops_per_unit": task.train_flops(forward, full["seq_len"])}


def test_positions_start_after_pad_as_fairseq_s() -> None:
    table = sinusoids(4, 8, pad=1)              # the first token (row pad + 1 = 2) at angle 2 x rate
    rates = torch.tensor([1.0, 10 ** (-4 / 3), 10 ** (-8 / 3), 1e-4])
    assert table[1].abs().sum() == 0 and torch.allclose(table[2, :4], torch.sin(2 * rates))
    assert torch.allclose(table[2, 4:], torch.cos(2 * rates))


def test_it_learns_to_copy_and_decodes_greedily() -> None:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)            # a tiny model: a second thread only waits on a shared host
    try:
        learns_to_copy()
    finally:
        torch.set_num_threads(threads)


def learns_to_copy() -> None:
    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=16, d_model=32, heads=2, ffn=64, encoder_layers=1,
                               decoder_layers=1, dropout=0.0, max_positions=16)
    net = TransformerMT(config)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    source = torch.randint(4, 16, (16, 4))
    target = torch.cat([source, torch.full((16, 1), 2)], dim=1)           # copy, then </s>
    decoder_in = torch.cat([torch.full((16, 1), 2), source], dim=1)        # </s> first
    for _ in range(80):
        optimizer.zero_grad()
        logits = net(source, decoder_in, torch.ones_like(source)).logits
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 16), target.reshape(-1))
        loss.backward()
        optimizer.step()
    net.eval()
    out = net.greedy(source[:4], torch.ones_like(source[:4]), max_length=10)
    assert out.shape[1] <= 10 and (out[:, :5] == target[:4]).float().mean() > 0.9
