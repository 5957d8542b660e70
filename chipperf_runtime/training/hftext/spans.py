"""T5's span corruption (Raffel et al. 2020, section 3.1.4), in numpy: about ``density`` of a
row's tokens are dropped in spans of ``mean_span`` tokens on average; the encoder sees the row
with each dropped span replaced by one sentinel, the decoder predicts each sentinel followed by
the span it stands for, then an end token.

Rows are the masked-LM layout's (``textlm.mlm``: ``[CLS] A [SEP] B [SEP] [PAD]...``); the
special tokens are dropped first and padding (id ``pad``) fills both sides. Sentinel ``i`` is
token ``first_sentinel + i`` (the ids after the data's vocabulary) and the end token is the
data's ``[SEP]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

IGNORE = -100


@dataclass(frozen=True)
class SpanBatch:
    input_ids: np.ndarray          # [rows, seq_len], pad-filled
    attention_mask: np.ndarray     # 1 on real input tokens
    labels: np.ndarray             # [rows, target_len], IGNORE after the end token
    scored: np.ndarray             # bool, the labels that are dropped tokens (not sentinels/end)

    def take(self, index: np.ndarray) -> SpanBatch:
        return SpanBatch(self.input_ids[index], self.attention_mask[index], self.labels[index],
                         self.scored[index])


def target_length(seq_len: int, density: float, mean_span: float) -> int:
    """The longest target a ``seq_len`` row can give: its noise, a sentinel per span, the end."""
    noise = max(1, round(seq_len * density))
    return noise + max(1, round(noise / mean_span)) + 1


def noise_mask(length: int, density: float, mean_span: float,
               rng: np.random.Generator) -> np.ndarray:
    """Boolean [length]: ``round(length * density)`` noise tokens in ``round(noise / mean_span)``
    spans, alternating with non-noise spans, the first span non-noise (T5's random_spans)."""
    noise = min(max(1, round(length * density)), length - 1)
    spans = max(1, min(round(noise / mean_span), noise, length - noise))
    noise_lengths = _segment(noise, spans, rng)
    keep_lengths = _segment(length - noise, spans, rng)
    mask = np.zeros(length, dtype=bool)
    start = 0
    for keep, drop in zip(keep_lengths, noise_lengths):
        start += keep
        mask[start:start + drop] = True
        start += drop
    return mask


def _segment(items: int, segments: int, rng: np.random.Generator) -> np.ndarray:
    """``items`` split into ``segments`` random positive lengths."""
    cuts = np.sort(rng.choice(np.arange(1, items), size=segments - 1, replace=False)) \
        if segments > 1 else np.array([], dtype=np.int64)
    return np.diff(np.concatenate([[0], cuts, [items]]))


def corrupt(tokens: np.ndarray, mask: np.ndarray, first_sentinel: int,
            end: int) -> tuple[list[int], list[int]]:
    """(encoder input, decoder target) of one row's real tokens and its noise mask."""
    inputs: list[int] = []
    target: list[int] = []
    sentinel = first_sentinel
    for i, token in enumerate(tokens.tolist()):
        starts = mask[i] and (i == 0 or not mask[i - 1])
        if starts:
            inputs.append(sentinel)
            target.append(sentinel)
            sentinel += 1
        (target if mask[i] else inputs).append(token)
    return inputs, target + [end]


def span_batch(rows: np.ndarray, specials: tuple[int, ...], pad: int, end: int,
               first_sentinel: int, density: float, mean_span: float,
               rng: np.random.Generator) -> SpanBatch:
    """Corrupt every row of ``rows`` (special tokens dropped first)."""
    seq_len = rows.shape[1]
    target_len = target_length(seq_len, density, mean_span)
    inputs = np.full((len(rows), seq_len), pad, dtype=np.int64)
    labels = np.full((len(rows), target_len), IGNORE, dtype=np.int64)
    for r, row in enumerate(rows):
        tokens = row[~np.isin(row, specials)]
        if len(tokens) < 2:
            tokens = row[:2]
        source, target = corrupt(tokens, noise_mask(len(tokens), density, mean_span, rng),
                                 first_sentinel, end)
        inputs[r, :len(source)] = source
        labels[r, :len(target)] = target
    scored = (labels != IGNORE) & (labels != end) & (labels < first_sentinel)
    return SpanBatch(inputs, (inputs != pad).astype(np.int64), labels, scored)
