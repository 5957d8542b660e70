"""Llama 2 decoder for causal-LM training, in plain PyTorch.

The architecture is the published one (Touvron et al. 2023, Meta's ``params.json`` for
Llama-2-7B): pre-norm decoder with RMSNorm, rotary position embeddings (RoPE, theta 10000)
on queries and keys, SwiGLU feed-forward (``down(silu(gate(x)) * up(x))``), no biases, a
final RMSNorm and an untied ``lm_head``. Parameter names follow Hugging Face
``LlamaForCausalLM``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


@dataclass(frozen=True)
class LlamaConfig:
    vocab_size: int = 32000
    hidden_size: int = 4096
    num_layers: int = 32
    num_heads: int = 32
    num_kv_heads: int = 32
    intermediate_size: int = 11008
    max_seq_len: int = 4096
    rms_norm_eps: float = 1e-5
    rope_theta: float = 10000.0
    initializer_range: float = 0.02

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_heads


# Published size (Meta's Llama-2-7b params.json, intermediate size from its checkpoints)
# and the CI size. The CI vocabulary is Llama's 3 special + 256 byte-fallback tokens (ids 0-258).
PRESETS = {
    "7b": LlamaConfig(),
    "tiny": LlamaConfig(vocab_size=259, hidden_size=128, num_layers=2, num_heads=4,
                        num_kv_heads=4, intermediate_size=352, max_seq_len=256),
}


def matmul_params(cfg: LlamaConfig) -> int:
    """Weights used in a matmul for every token: attention Q/K/V/O, SwiGLU gate/up/down and the
    lm_head (the input embedding is a lookup, RMSNorm weights are elementwise)."""
    h, kv = cfg.hidden_size, cfg.num_kv_heads * cfg.head_dim
    per_layer = 2 * h * h + 2 * h * kv + 3 * h * cfg.intermediate_size
    return cfg.num_layers * per_layer + h * cfg.vocab_size


def train_flops_per_token(cfg: LlamaConfig, seq_len: int) -> float:
    """Forward + backward FLOPs per token: 6*N + 12*L*h*s (PaLM appendix B; the attention
    term counts the full, not the causal half, score matrix), N = ``matmul_params``."""
    return 6.0 * matmul_params(cfg) + 12.0 * cfg.num_layers * cfg.hidden_size * seq_len


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(x.dtype)


def rope_tables(cfg: LlamaConfig, seq_len: int, device: torch.device) -> tuple[torch.Tensor, ...]:
    """cos and sin [seq, head_dim] for rotary embeddings (computed in fp32)."""
    inv_freq = 1.0 / cfg.rope_theta ** (
        torch.arange(0, cfg.head_dim, 2, device=device, dtype=torch.float32) / cfg.head_dim)
    angles = torch.outer(torch.arange(seq_len, device=device, dtype=torch.float32), inv_freq)
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos(), angles.sin()


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    first, second = x.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    return (x * cos.to(x.dtype)) + (_rotate_half(x) * sin.to(x.dtype))


class Attention(nn.Module):
    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.cfg = cfg
        h, kv = cfg.hidden_size, cfg.num_kv_heads * cfg.head_dim
        self.q_proj = nn.Linear(h, h, bias=False)
        self.k_proj = nn.Linear(h, kv, bias=False)
        self.v_proj = nn.Linear(h, kv, bias=False)
        self.o_proj = nn.Linear(h, h, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        batch, seq, hidden = x.shape
        q = self.q_proj(x).view(batch, seq, self.cfg.num_heads, -1).transpose(1, 2)
        k = self.k_proj(x).view(batch, seq, self.cfg.num_kv_heads, -1).transpose(1, 2)
        v = self.v_proj(x).view(batch, seq, self.cfg.num_kv_heads, -1).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        out = F.scaled_dot_product_attention(
            q, k, v, is_causal=True, enable_gqa=self.cfg.num_kv_heads != self.cfg.num_heads)
        return self.o_proj(out.transpose(1, 2).reshape(batch, seq, hidden))


class MLP(nn.Module):
    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.hidden_size, cfg.intermediate_size, bias=False)
        self.up_proj = nn.Linear(cfg.hidden_size, cfg.intermediate_size, bias=False)
        self.down_proj = nn.Linear(cfg.intermediate_size, cfg.hidden_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.input_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.mlp = MLP(cfg)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaForCausalLM(nn.Module):
    def __init__(self, cfg: LlamaConfig, activation_checkpointing: bool = False):
        super().__init__()
        self.cfg = cfg
        self.activation_checkpointing = activation_checkpointing
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.num_layers))
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.lm_head = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
        self.apply(self._init_weights)

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=self.cfg.initializer_range)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Logits [batch, seq, vocab]."""
        cos, sin = rope_tables(self.cfg, input_ids.shape[1], input_ids.device)
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            if self.activation_checkpointing and self.training:
                x = checkpoint(layer, x, cos, sin, use_reentrant=False)
            else:
                x = layer(x, cos, sin)
        return self.lm_head(self.norm(x))


def causal_lm_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross entropy (nats); ``targets`` are the inputs shifted by one."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), targets.reshape(-1))


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
