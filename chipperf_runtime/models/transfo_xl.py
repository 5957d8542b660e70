"""Transformer-XL (Dai et al. 2019, arXiv 1901.02860) as transformers 4.34's
``TransfoXLLMHeadModel`` builds it, the model FlagPerf's transformer_xl case trains.

transformers deprecated the model in 4.35 and has since removed it, and no maintained PyTorch
library ships it (training/benchmarks/transformer_xl/pytorch/README.md), so it is written here,
once, in plain torch, with transformers 4.34's module and parameter names
(``transformer.word_emb.emb_layers.0.weight``, ``transformer.layers.0.dec_attn.qkv_net.weight``,
``crit.out_projs.1`` ...): a 4.34 state dict loads with ``load_state_dict``. What makes it
Transformer-XL:

- segment-level recurrence: each layer attends over its own input of the previous
  ``mem_len`` positions (the memory, kept without gradient) followed by the segment;
- relative positions: sinusoids of the distance (``klen - 1`` down to 0, clamped at
  ``clamp_len``) projected by ``r_net``, with the two learnt biases ``r_w_bias`` (content)
  and ``r_r_bias`` (position) per layer (``untie_r``), and the "relative shift";
- ``same_length``: every query sees the same number of keys (the memory's oldest positions
  masked for the later queries);
- an adaptive input embedding and an adaptive softmax (Baevski & Auli; Grave et al.): the
  vocabulary cut at ``cutoffs``, cluster ``i`` embedded in ``d_embed // div_val**i``
  dimensions and projected to ``d_model``; the softmax's head scores the first cluster's
  words and one logit per tail cluster; output weights tied to the embeddings, projections
  tied where ``tie_projs`` says.

Only what the released configurations use is written: ``attn_type`` 0, post-LayerNorm,
``untie_r``, ``div_val`` above 1. A model with no memory passed attends, as transformers'
does, to ``mem_len`` zero vectors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn

Memory = list[torch.Tensor]   # per layer: [mem_len, batch, d_model], that layer's input


@dataclass(frozen=True)
class TransfoXLConfig:
    """transformers 4.34's ``TransfoXLConfig`` fields this model reads (its defaults are
    transfo-xl-wt103's)."""

    vocab_size: int = 267735
    cutoffs: tuple[int, ...] = (20000, 40000, 200000)
    tie_projs: tuple[bool, ...] = (False, True, True, True)
    d_model: int = 1024
    d_embed: int = 1024
    n_head: int = 16
    d_head: int = 64
    d_inner: int = 4096
    div_val: int = 4
    n_layer: int = 18
    mem_len: int = 1600
    clamp_len: int = 1000
    same_length: bool = True
    dropout: float = 0.1
    dropatt: float = 0.0
    init_range: float = 0.01       # transformers' init "normal" uses init_std; kept for names
    proj_init_std: float = 0.01
    init_std: float = 0.02
    layer_norm_epsilon: float = 1e-5
    unsupported: tuple[str, ...] = field(default=(), compare=False)

    def problems(self) -> list[str]:
        """What this implementation does not build, one line each."""
        out = [f"{name} is not supported" for name in self.unsupported]
        if self.div_val < 2:
            out.append(f"div_val {self.div_val}: only adaptive embeddings (div_val 2 or more)")
        if list(self.cutoffs) != sorted(set(self.cutoffs)) or not self.cutoffs or \
                self.cutoffs[-1] >= self.vocab_size:
            out.append(f"cutoffs {list(self.cutoffs)} must increase and stay below vocab_size "
                       f"{self.vocab_size}")
        if len(self.tie_projs) != len(self.cutoffs) + 1:
            out.append(f"tie_projs needs {len(self.cutoffs) + 1} entries (one per cluster)")
        return out


# transformers' config.json keys whose values this model cannot build
UNSUPPORTED = {"attn_type": 0, "pre_lnorm": False, "untie_r": True, "adaptive": True,
               "sample_softmax": -1}


def config_from_json(values: dict, **shape: object) -> TransfoXLConfig:
    """A config from transformers' ``config.json`` keys (``shape`` overrides them); keys
    this model does not use are ignored, values it cannot build are named in
    ``unsupported``."""
    known = {k: v for k, v in {**values, **shape}.items()
             if k in TransfoXLConfig.__dataclass_fields__ and k != "unsupported"}
    for key in ("cutoffs", "tie_projs"):
        if key in known:
            known[key] = tuple(known[key])  # type: ignore[arg-type]
    bad = tuple(f"{k} = {values[k]!r} (only {v!r})" for k, v in UNSUPPORTED.items()
                if k in values and values[k] != v)
    return TransfoXLConfig(**known, unsupported=bad)  # type: ignore[arg-type]


def cluster_bounds(config: TransfoXLConfig) -> list[tuple[int, int]]:
    ends = [0, *config.cutoffs, config.vocab_size]
    return list(zip(ends[:-1], ends[1:]))


def cluster_dims(config: TransfoXLConfig) -> list[int]:
    return [config.d_embed // config.div_val ** i for i in range(len(config.cutoffs) + 1)]


class AdaptiveEmbedding(nn.Module):
    def __init__(self, config: TransfoXLConfig) -> None:
        super().__init__()
        self.bounds, self.d_proj = cluster_bounds(config), config.d_model
        self.emb_scale = config.d_model ** 0.5
        dims = cluster_dims(config)
        self.emb_layers = nn.ModuleList(nn.Embedding(r - left, d)
                                        for (left, r), d in zip(self.bounds, dims))
        self.emb_projs = nn.ParameterList(nn.Parameter(torch.empty(config.d_model, d))
                                          for d in dims)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        flat = ids.reshape(-1)
        weight = self.emb_projs[0]
        out = torch.zeros(flat.numel(), self.d_proj, dtype=weight.dtype, device=weight.device)
        for (left, right), emb, proj in zip(self.bounds, self.emb_layers, self.emb_projs):
            rows = ((flat >= left) & (flat < right)).nonzero().squeeze(1)
            if rows.numel():
                out.index_copy_(0, rows, nn.functional.linear(emb(flat[rows] - left), proj))
        return out.view(*ids.shape, self.d_proj) * self.emb_scale


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.register_buffer("inv_freq", 1 / (10000 ** (torch.arange(0.0, d_model, 2.0) / d_model)))

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        angles = torch.outer(positions, self.inv_freq)   # type: ignore[arg-type]
        return torch.cat([angles.sin(), angles.cos()], dim=-1)[:, None, :]


def rel_shift(scores: torch.Tensor) -> torch.Tensor:
    """[q, k, b, h] scores by key position -> by relative distance (Transformer-XL's shift)."""
    q, k = scores.shape[:2]
    padded = torch.cat([scores.new_zeros(q, 1, *scores.shape[2:]), scores], dim=1)
    return padded.view(k + 1, q, *scores.shape[2:])[1:].view_as(scores)


class RelPartialLearnableMultiHeadAttn(nn.Module):
    def __init__(self, config: TransfoXLConfig) -> None:
        super().__init__()
        inner, self.n_head, self.d_head = config.n_head * config.d_head, config.n_head, config.d_head
        self.qkv_net = nn.Linear(config.d_model, 3 * inner, bias=False)
        self.drop, self.dropatt = nn.Dropout(config.dropout), nn.Dropout(config.dropatt)
        self.o_net = nn.Linear(inner, config.d_model, bias=False)
        self.layer_norm = nn.LayerNorm(config.d_model, eps=config.layer_norm_epsilon)
        self.scale = config.d_head ** -0.5
        self.r_r_bias = nn.Parameter(torch.empty(config.n_head, config.d_head))
        self.r_w_bias = nn.Parameter(torch.empty(config.n_head, config.d_head))
        self.r_net = nn.Linear(config.d_model, inner, bias=False)

    def forward(self, w: torch.Tensor, r: torch.Tensor, mask: torch.Tensor,
                mem: torch.Tensor) -> torch.Tensor:
        qlen, bsz = w.shape[:2]
        heads = self.qkv_net(torch.cat([mem, w], 0))
        q, k, v = (t.view(t.shape[0], bsz, self.n_head, self.d_head)
                   for t in torch.chunk(heads, 3, dim=-1))
        q = q[-qlen:]
        r_k = self.r_net(r).view(r.shape[0], self.n_head, self.d_head)
        content = torch.einsum("ibnd,jbnd->ijbn", q + self.r_w_bias, k)
        position = rel_shift(torch.einsum("ibnd,jnd->ijbn", q + self.r_r_bias, r_k))
        scores = (content + position) * self.scale
        scores = scores.float().masked_fill(mask[:, :, None, None], torch.finfo(torch.float32).min)
        prob = self.dropatt(torch.softmax(scores, dim=1).type_as(v))
        vec = torch.einsum("ijbn,jbnd->ibnd", prob, v).reshape(qlen, bsz, -1)
        return self.layer_norm(w + self.drop(self.o_net(vec)))


class PositionwiseFF(nn.Module):
    def __init__(self, config: TransfoXLConfig) -> None:
        super().__init__()
        self.CoreNet = nn.Sequential(
            nn.Linear(config.d_model, config.d_inner), nn.ReLU(inplace=True),
            nn.Dropout(config.dropout), nn.Linear(config.d_inner, config.d_model),
            nn.Dropout(config.dropout))
        self.layer_norm = nn.LayerNorm(config.d_model, eps=config.layer_norm_epsilon)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer_norm(x + self.CoreNet(x))


class RelPartialLearnableDecoderLayer(nn.Module):
    def __init__(self, config: TransfoXLConfig) -> None:
        super().__init__()
        self.dec_attn = RelPartialLearnableMultiHeadAttn(config)
        self.pos_ff = PositionwiseFF(config)

    def forward(self, x: torch.Tensor, r: torch.Tensor, mask: torch.Tensor,
                mem: torch.Tensor) -> torch.Tensor:
        return self.pos_ff(self.dec_attn(x, r, mask, mem))


def attention_mask(qlen: int, mlen: int, mem_len: int, same_length: bool,
                   device: torch.device) -> torch.Tensor:
    """[qlen, qlen + mlen] bool, True where a query may NOT attend: future keys, and with
    ``same_length`` the oldest keys beyond an equal span for every query."""
    ones = torch.ones(qlen, qlen + mlen, dtype=torch.bool, device=device)
    mask = torch.triu(ones, 1 + mlen)
    if not same_length:
        return mask
    over = qlen + mlen - mem_len
    return mask | torch.tril(ones, -(qlen - over if over > 0 else qlen))


class TransfoXLModel(nn.Module):
    def __init__(self, config: TransfoXLConfig) -> None:
        super().__init__()
        self.config = config
        self.word_emb = AdaptiveEmbedding(config)
        self.drop = nn.Dropout(config.dropout)
        self.layers = nn.ModuleList(RelPartialLearnableDecoderLayer(config)
                                    for _ in range(config.n_layer))
        self.pos_emb = PositionalEmbedding(config.d_model)

    def init_mems(self, bsz: int) -> Memory:
        weight = self.word_emb.emb_projs[0]
        return [weight.new_zeros(self.config.mem_len, bsz, self.config.d_model)
                for _ in range(self.config.n_layer)]

    def forward(self, ids: torch.Tensor, mems: Memory) -> tuple[torch.Tensor, Memory]:
        """``ids`` [batch, len] -> (hidden [len, batch, d_model], the next memory)."""
        x = self.word_emb(ids.t())
        qlen, mlen = x.shape[0], mems[0].shape[0]
        mask = attention_mask(qlen, mlen, self.config.mem_len, self.config.same_length, x.device)
        positions = torch.arange(qlen + mlen - 1, -1, -1.0, device=x.device, dtype=x.dtype)
        r = self.drop(self.pos_emb(positions.clamp_(max=self.config.clamp_len)))
        x, inputs = self.drop(x), []
        for layer, mem in zip(self.layers, mems):
            inputs.append(x)
            x = layer(x, r, mask, mem)
        return self.drop(x), next_memory(inputs, mems, self.config.mem_len)


def next_memory(inputs: Memory, mems: Memory, mem_len: int) -> Memory:
    """Each layer's last ``mem_len`` input positions over memory + segment, without gradient."""
    with torch.no_grad():
        return [torch.cat([m, x], 0)[-mem_len:].detach() for m, x in zip(mems, inputs)]


class ProjectedAdaptiveLogSoftmax(nn.Module):
    def __init__(self, config: TransfoXLConfig) -> None:
        super().__init__()
        self.bounds, tails = cluster_bounds(config), len(config.cutoffs)
        self.cluster_weight = nn.Parameter(torch.zeros(tails, config.d_embed))
        self.cluster_bias = nn.Parameter(torch.zeros(tails))
        dims = cluster_dims(config)
        self.out_layers = nn.ModuleList(nn.Linear(d, r - left)
                                        for (left, r), d in zip(self.bounds, dims))
        self.out_projs = nn.ParameterList(nn.Parameter(torch.empty(config.d_model, d))
                                          for d in dims)

    def logits(self, hidden: torch.Tensor, cluster: int) -> torch.Tensor:
        layer, proj = self.out_layers[cluster], self.out_projs[cluster]
        assert isinstance(layer, nn.Linear)
        weight: torch.Tensor = layer.weight
        bias: torch.Tensor = layer.bias
        if cluster == 0:
            weight = torch.cat([weight, self.cluster_weight])
            bias = torch.cat([bias, self.cluster_bias])
        return nn.functional.linear(nn.functional.linear(hidden, proj.t()), weight, bias)

    def forward(self, hidden: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """Negative log-likelihood of each label [n] given its hidden state [n, d_model];
        a tail cluster's softmax runs only over the rows whose label is in it."""
        head = torch.log_softmax(self.logits(hidden, 0).float(), dim=-1)
        head_size = self.bounds[0][1]
        nll = -head.gather(1, labels.clamp(max=head_size - 1)[:, None]).squeeze(1)
        for i, (left, right) in enumerate(self.bounds[1:], start=1):
            rows = ((labels >= left) & (labels < right)).nonzero().squeeze(1)
            if rows.numel() == 0:
                continue
            tail = torch.log_softmax(self.logits(hidden[rows], i).float(), dim=-1)
            logprob = head[rows, head_size + i - 1] + \
                tail.gather(1, (labels[rows] - left)[:, None]).squeeze(1)
            nll = nll.index_copy(0, rows, -logprob)
        return nll


class TransfoXLLMHeadModel(nn.Module):
    """transformers 4.34's ``TransfoXLLMHeadModel`` (training side): ``forward`` gives the
    negative log-likelihood of each next token within the segment, as transformers' does when
    ``labels`` is the input, and the next memory."""

    def __init__(self, config: TransfoXLConfig) -> None:
        super().__init__()
        problems = config.problems()
        if problems:
            raise ValueError(f"Transformer-XL config: {'; '.join(problems)}")
        self.config = config
        self.transformer = TransfoXLModel(config)
        self.crit = ProjectedAdaptiveLogSoftmax(config)
        self.tie_weights()
        self.apply(self.init_weights)

    def tie_weights(self) -> None:
        """Output weights are the embeddings; a projection is shared where ``tie_projs``."""
        emb = self.transformer.word_emb
        for i, out in enumerate(self.crit.out_layers):
            out.weight = emb.emb_layers[i].weight  # type: ignore[union-attr]
            if self.config.tie_projs[i]:
                self.crit.out_projs[i] = emb.emb_projs[i]

    def init_weights(self, module: nn.Module) -> None:
        """transformers 4.34's initialisation (``init`` "normal")."""
        std, proj_std = self.config.init_std, self.config.proj_init_std
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, 0.0, std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, 0.0, std)
        elif isinstance(module, nn.LayerNorm):
            nn.init.normal_(module.weight, 1.0, std)
            nn.init.zeros_(module.bias)
        elif isinstance(module, (AdaptiveEmbedding, ProjectedAdaptiveLogSoftmax)):
            init_projections(module, proj_std, std)
        elif isinstance(module, RelPartialLearnableMultiHeadAttn):
            nn.init.normal_(module.r_w_bias, 0.0, std)
            nn.init.normal_(module.r_r_bias, 0.0, std)

    def forward(self, ids: torch.Tensor, mems: Memory | None = None) -> tuple[torch.Tensor, Memory]:
        """``ids`` [batch, len] -> (NLL [batch, len - 1] of token t+1 given tokens up to t
        and the memory, the next memory)."""
        hidden, new_mems = self.transformer(ids, self.transformer.init_mems(ids.shape[0])
                                            if mems is None else mems)
        hidden = hidden.transpose(0, 1)[:, :-1]
        nll = self.crit(hidden.reshape(-1, hidden.shape[-1]), ids[:, 1:].reshape(-1))
        return nll.view(ids.shape[0], -1), new_mems


def init_projections(module: nn.Module, proj_std: float, std: float) -> None:
    for proj in getattr(module, "emb_projs", getattr(module, "out_projs", [])):
        nn.init.normal_(proj, 0.0, proj_std)
    if isinstance(module, ProjectedAdaptiveLogSoftmax):
        nn.init.normal_(module.cluster_weight, 0.0, std)
        nn.init.zeros_(module.cluster_bias)


class SegmentRecurrence(nn.Module):
    """Transformer-XL trained segment after segment: ``forward(ids, segment)`` is the mean NLL
    of a batch of segments given the memory the previous call left (row by row; a row whose
    ``segment`` index is 0 starts a stream, from an empty memory). The memory carries no
    gradient and is not state_dict state; ``lm`` holds transformers' parameter names."""

    def __init__(self, lm: TransfoXLLMHeadModel) -> None:
        super().__init__()
        self.lm = lm
        self.mems: Memory | None = None

    def forward(self, ids: torch.Tensor, segment: torch.Tensor) -> torch.Tensor:
        nll, self.mems = self.lm(ids, self.carried(segment))
        return nll.mean()

    def carried(self, segment: torch.Tensor) -> Memory | None:
        if self.mems is None or self.mems[0].shape[1] != segment.shape[0]:
            return None
        keep = (segment != 0).to(self.mems[0].dtype)[None, :, None]
        return [m * keep for m in self.mems]

    def stream_nll(self, streams: torch.Tensor) -> tuple[torch.Tensor, int]:
        """Summed NLL and predicted tokens over ``streams`` [batch, segments, len], each read
        from its start with the memory carried (the training memory is left as it was)."""
        total, mems = streams.new_zeros((), dtype=torch.float64), None
        for seg in range(streams.shape[1]):
            nll, mems = self.lm(streams[:, seg], mems)
            total = total + nll.double().sum()
        return total, streams.shape[0] * streams.shape[1] * (streams.shape[2] - 1)


def forward_flops(config: TransfoXLConfig, qlen: int, shares: list[float]) -> float:
    """Forward FLOPs (2 per multiply-add) of one segment of ``qlen`` tokens attending over
    ``mem_len`` more; ``shares``: the fraction of tokens in each vocabulary cluster (the
    adaptive embedding and softmax cost depends on it)."""
    d, inner, klen = config.d_model, config.n_head * config.d_head, qlen + config.mem_len
    per_layer = 2 * d * inner * (3 * klen + klen + qlen) + 3 * 2 * qlen * klen * inner \
        + 2 * 2 * d * config.d_inner * qlen
    dims, bounds = cluster_dims(config), cluster_bounds(config)
    embed = sum(s * 2 * d * dim for s, dim in zip(shares, dims)) * qlen
    head = 2 * d * dims[0] + 2 * dims[0] * (bounds[0][1] + len(config.cutoffs))
    tails = sum(s * (2 * d * dim + 2 * dim * (r - left))
                for s, dim, (left, r) in zip(shares[1:], dims[1:], bounds[1:]))
    return float(config.n_layer * per_layer + embed + (qlen - 1) * (head + tails))
