"""BERT for masked-LM pretraining in Paddle.

The architecture is the published one (Devlin et al. 2018; Google's ``bert_config.json``):
post-LayerNorm Transformer encoder (Paddle's ``nn.TransformerEncoderLayer``, as PaddleNLP's
BERT uses it: separate Q/K/V/O projections, erf-GELU, no dropout inside the FFN), learned
absolute positions, token types, and the MLM head (dense + GELU + LayerNorm, then a decoder
tied to the word embeddings plus its own bias). No pooler and no next-sentence head: the
objective is masked-LM only, like the bert/pytorch case, so both read the same data and
count the same FLOPs. BERT-large here has 335,174,458 parameters, Hugging Face
``BertForMaskedLM``'s count for bert-large-uncased.
"""

from __future__ import annotations

from dataclasses import dataclass

import paddle
import paddle.nn.functional as F
from paddle import nn

IGNORE = -100


@dataclass(frozen=True)
class BertConfig:
    vocab_size: int = 30522
    hidden_size: int = 1024
    num_layers: int = 24
    num_heads: int = 16
    intermediate_size: int = 4096
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    hidden_dropout: float = 0.1
    attention_dropout: float = 0.1
    layer_norm_eps: float = 1e-12
    initializer_range: float = 0.02

    def problems(self) -> list[str]:
        out = [f"{name} must be >= 1" for name in ("vocab_size", "hidden_size", "num_layers",
                                                   "num_heads", "intermediate_size")
               if getattr(self, name) < 1]
        if self.num_heads >= 1 and self.hidden_size % self.num_heads:
            out.append(f"hidden_size {self.hidden_size} is not a multiple of "
                       f"num_heads {self.num_heads}")
        return out


# The published BERT-large (Google's bert_config.json) and the CI size.
PRESETS = {
    "large": BertConfig(),
    "tiny": BertConfig(vocab_size=4096, hidden_size=128, num_layers=2, num_heads=2,
                       intermediate_size=512, max_position_embeddings=128),
}


def parameter_count(cfg: BertConfig) -> int:
    """Parameters from the shapes alone (the tied decoder weight counts once)."""
    h, i, v = cfg.hidden_size, cfg.intermediate_size, cfg.vocab_size
    embeddings = (v + cfg.max_position_embeddings + cfg.type_vocab_size) * h + 2 * h
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * 2 * h
    mlm_head = (h * h + h) + 2 * h + v
    return embeddings + cfg.num_layers * layer + mlm_head


def matmul_params(cfg: BertConfig) -> int:
    """Weights that take part in a matmul for every token (embedding lookups and biases
    excluded): encoder Q/K/V/O + FFN, the MLM transform and the tied decoder."""
    h, i = cfg.hidden_size, cfg.intermediate_size
    return cfg.num_layers * (4 * h * h + 2 * h * i) + h * h + h * cfg.vocab_size


def train_flops_per_sequence(cfg: BertConfig, seq_len: int) -> float:
    """Forward + backward FLOPs of one sequence: 6*N*s + 12*L*h*s^2 (attention scores and
    their weighted sum), N = ``matmul_params``. The MLM head runs on every position."""
    return 6.0 * matmul_params(cfg) * seq_len + 12.0 * cfg.num_layers * cfg.hidden_size * seq_len**2


class Embeddings(nn.Layer):
    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.word = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.position = nn.Embedding(cfg.max_position_embeddings, cfg.hidden_size)
        self.token_type = nn.Embedding(cfg.type_vocab_size, cfg.hidden_size)
        self.norm = nn.LayerNorm(cfg.hidden_size, epsilon=cfg.layer_norm_eps)
        self.dropout = nn.Dropout(cfg.hidden_dropout)

    def forward(self, input_ids: paddle.Tensor, token_type_ids: paddle.Tensor) -> paddle.Tensor:
        positions = paddle.arange(input_ids.shape[1], dtype="int64").unsqueeze(0)
        x = self.word(input_ids) + self.position(positions) + self.token_type(token_type_ids)
        return self.dropout(self.norm(x))


class MLMHead(nn.Layer):
    def __init__(self, cfg: BertConfig, word_embeddings: nn.Embedding):
        super().__init__()
        self.transform = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        self.norm = nn.LayerNorm(cfg.hidden_size, epsilon=cfg.layer_norm_eps)
        self.word_embeddings = word_embeddings  # tied decoder weight (not a second copy)
        self.bias = self.create_parameter([cfg.vocab_size], is_bias=True)

    def forward(self, x: paddle.Tensor) -> paddle.Tensor:
        x = self.norm(F.gelu(self.transform(x)))
        return paddle.matmul(x, self.word_embeddings.weight, transpose_y=True) + self.bias


class BertForMaskedLM(nn.Layer):
    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.cfg = cfg
        self.embeddings = Embeddings(cfg)
        self.layers = nn.LayerList([
            nn.TransformerEncoderLayer(
                cfg.hidden_size, cfg.num_heads, cfg.intermediate_size,
                dropout=cfg.hidden_dropout, activation="gelu",
                attn_dropout=cfg.attention_dropout, act_dropout=0.0,
                layer_norm_eps=cfg.layer_norm_eps)
            for _ in range(cfg.num_layers)])
        self.mlm = MLMHead(cfg, self.embeddings.word)
        self.apply(self._init_weights)

    def _init_weights(self, layer: nn.Layer) -> None:
        normal = nn.initializer.Normal(mean=0.0, std=self.cfg.initializer_range)
        if isinstance(layer, (nn.Linear, nn.Embedding)):
            normal(layer.weight)
        if isinstance(layer, nn.Linear) and layer.bias is not None:
            nn.initializer.Constant(0.0)(layer.bias)

    def forward(self, input_ids: paddle.Tensor, token_type_ids: paddle.Tensor,
                attention_mask: paddle.Tensor) -> paddle.Tensor:
        """Logits [batch, seq, vocab]; ``attention_mask`` is 1 for real tokens, 0 for padding."""
        keep = attention_mask.astype("bool").unsqueeze([1, 2])  # [batch, 1, 1, seq]
        x = self.embeddings(input_ids, token_type_ids)
        for layer in self.layers:
            x = layer(x, src_mask=keep)
        return self.mlm(x)


def mlm_loss(logits: paddle.Tensor, labels: paddle.Tensor) -> paddle.Tensor:
    """Mean cross entropy over the masked positions (label -100 elsewhere). Paddle's own
    ``reduction="mean"`` divides by every position, ignored ones included, so the mean is
    taken here."""
    flat = labels.reshape([-1])
    per_token = F.cross_entropy(logits.reshape([-1, logits.shape[-1]]).astype("float32"),
                                flat, ignore_index=IGNORE, reduction="none").reshape([-1])
    chosen = (flat != IGNORE).astype("float32")
    return (per_token * chosen).sum() / paddle.clip(chosen.sum(), min=1.0)


def mlm_correct(logits: paddle.Tensor, labels: paddle.Tensor) -> tuple[int, int]:
    """(correct predictions, masked positions) of one batch."""
    chosen = labels != IGNORE
    correct = paddle.logical_and(logits.argmax(axis=-1) == labels, chosen)
    return int(correct.astype("int64").sum()), int(chosen.astype("int64").sum())


def count_parameters(model: nn.Layer) -> int:
    """Distinct parameters (the tied decoder weight counts once)."""
    return sum(int(p.size) for p in model.parameters())
