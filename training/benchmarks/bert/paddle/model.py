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

import paddle
import paddle.nn.functional as F
from paddle import nn

from chipperf_runtime.training.textlm.bert import BertConfig

IGNORE = -100


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
