"""wav2vec 2.0 from transformers (``Wav2Vec2ForPreTraining``), built from a config: no
weights are downloaded. ``PRESETS`` are the keyword arguments of ``Wav2Vec2Config`` per
``model_size``; FLOPs are counted by ``torch.utils.flop_counter`` on the meta device (2 per
multiply-accumulate of every convolution and matrix product of one forward pass over one
crop), as the text and vision cases count theirs.
"""

from __future__ import annotations

from typing import Any, Mapping

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from chipperf_runtime.training.driver import Config, ConfigError

BASE_CONV = {"conv_dim": (512,) * 7, "conv_stride": (5, 2, 2, 2, 2, 2, 2),
             "conv_kernel": (10, 3, 3, 3, 3, 2, 2)}
PRESETS: dict[str, dict[str, Any]] = {
    # wav2vec 2.0 BASE as FlagPerf's wav2vec2 pretrains it (its config/model_config.py): the
    # 7-layer conv feature encoder (512 channels, group norm, no conv bias; 20 ms frames at
    # 16 kHz), 12 x 768 transformer, 12 heads, FFN 3072, convolutional positions (128, 16
    # groups), product quantizer of 2 groups x 320 codewords into 256 dims, final dim 256,
    # 100 negatives, logit temperature 0.1, diversity weight 0.1, masks of 10 frames at 0.65
    "base": {**BASE_CONV, "hidden_size": 768, "num_hidden_layers": 12,
             "num_attention_heads": 12, "intermediate_size": 3072, "feat_extract_norm": "group",
             "conv_bias": False, "num_conv_pos_embeddings": 128,
             "num_conv_pos_embedding_groups": 16, "do_stable_layer_norm": False,
             "hidden_dropout": 0.1, "attention_dropout": 0.1, "activation_dropout": 0.0,
             "feat_proj_dropout": 0.1, "feat_quantizer_dropout": 0.1, "layerdrop": 0.05,
             "num_codevectors_per_group": 320, "num_codevector_groups": 2,
             "codevector_dim": 256, "proj_codevector_dim": 256, "num_negatives": 100,
             "contrastive_logits_temperature": 0.1, "diversity_loss_weight": 0.1,
             "mask_time_prob": 0.65, "mask_time_length": 10},
    # CI: the same conv strides (20 ms frames) at 32 channels with layer norm, a 2 x 64
    # pre-norm transformer, 2 heads, FFN 128, 2 x 8 codewords into 32 dims, 10 negatives,
    # masks of 2 frames, no dropout (the post-norm, group-norm BASE recipe at this size stayed
    # at chance for hundreds of steps on the CI audio; see README)
    "tiny": {**BASE_CONV, "conv_dim": (32,) * 7, "hidden_size": 64, "num_hidden_layers": 2,
             "num_attention_heads": 2, "intermediate_size": 128, "feat_extract_norm": "layer",
             "conv_bias": False, "num_conv_pos_embeddings": 16,
             "num_conv_pos_embedding_groups": 4, "do_stable_layer_norm": True,
             "hidden_dropout": 0.0, "attention_dropout": 0.0, "activation_dropout": 0.0,
             "feat_proj_dropout": 0.0, "feat_quantizer_dropout": 0.0, "layerdrop": 0.0,
             "num_codevectors_per_group": 8, "num_codevector_groups": 2,
             "codevector_dim": 32, "proj_codevector_dim": 32, "num_negatives": 10,
             "contrastive_logits_temperature": 0.1, "diversity_loss_weight": 0.1,
             "mask_time_prob": 0.65, "mask_time_length": 2},
}
FULL_SIZE = {"model_size": "base", "crop_samples": 160000}


def preset_of(cfg: Config) -> Mapping[str, Any]:
    if cfg.model_size not in PRESETS:
        raise ConfigError(f"model_size {cfg.model_size!r} is unknown: use one of "
                          f"{', '.join(PRESETS)}")
    return PRESETS[cfg.model_size]


def w2v_config(preset: Mapping[str, Any]) -> Any:
    import transformers

    return transformers.Wav2Vec2Config(**preset)


def w2v_model(preset: Mapping[str, Any]) -> nn.Module:
    """``Wav2Vec2ForPreTraining`` of ``preset``, randomly initialised on the current default
    device (``with torch.device("meta")`` builds it without memory)."""
    import transformers

    return transformers.Wav2Vec2ForPreTraining(w2v_config(preset))


def frames(preset: Mapping[str, Any], samples: int) -> int:
    """Feature frames the conv encoder makes of ``samples`` audio samples (0: too short)."""
    length = samples
    for kernel, stride in zip(preset["conv_kernel"], preset["conv_stride"]):
        length = (length - kernel) // stride + 1
        if length < 1:
            return 0
    return length


def samples_for(preset: Mapping[str, Any], wanted: int) -> int:
    """The fewest audio samples the conv encoder makes ``wanted`` feature frames of."""
    length = wanted
    for kernel, stride in reversed(list(zip(preset["conv_kernel"], preset["conv_stride"]))):
        length = (length - 1) * stride + kernel
    return length


def count_forward_flops(net: nn.Module, samples: int) -> int:
    """FLOPs of one forward pass over one crop of ``samples`` audio samples (``net`` may live
    on the meta device), counted in eval mode with the training mode restored after. The
    contrastive logits (cosine similarities) are elementwise work the counter leaves out."""
    device = next(net.parameters()).device
    was_training = net.training
    net.eval()
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        net(torch.zeros(1, samples, device=device))
    net.train(was_training)
    return int(counter.get_total_flops())


def forward_flops(preset: Mapping[str, Any], samples: int) -> int:
    """Forward FLOPs per crop of the ``preset`` network, built on the meta device."""
    with torch.device("meta"):
        net = w2v_model(preset)
    # (two parameters are made with torch.FloatTensor, which ignores the default device)
    return count_forward_flops(net.to("meta"), samples)
