"""Generated token streams for the text cases' CI presets (nothing downloaded; the same seed
gives the same tokens).

``topic_stream``: runs of ``run`` tokens, each run about one id drawn at random from ``ids``:
a token is its run's id with probability ``FOLLOW``, else any id of ``ids``. A model that
reads the tokens around a position (before it for a causal LM, both sides for a masked one)
finds the run's id and is right about ``FOLLOW`` of the time; a guess from token frequencies
scores about ``1 / len(ids)``. A target between the two says the model learnt from context,
and a tiny model reaches it in a few dozen steps.

``chain_stream``: each token is its predecessor's fixed successor (one random cycle through
``ids``, so no id follows itself) with probability ``FOLLOW``, else any id of ``ids``. A model
must learn the successor table: predicting the input token again, what an untrained model
with tied input and output embeddings tends to do, is never right.
"""

from __future__ import annotations

import numpy as np

FOLLOW = 0.8


def topic_stream(n_tokens: int, ids: range, run: int, rng: np.random.Generator) -> np.ndarray:
    """``n_tokens`` int32 tokens of runs over the consecutive ``ids`` (module doc)."""
    if ids.step != 1 or len(ids) < 2 or run < 1:
        raise ValueError(f"topic_stream needs two or more consecutive ids and a run of 1 or "
                         f"more, got {ids} and {run}")
    topics = np.repeat(rng.integers(ids.start, ids.stop, -(-n_tokens // run)), run)[:n_tokens]
    noise = rng.integers(ids.start, ids.stop, n_tokens)
    return np.where(rng.random(n_tokens) < FOLLOW, topics, noise).astype(np.int32)


def chain_stream(n_tokens: int, ids: range, rng: np.random.Generator) -> np.ndarray:
    """``n_tokens`` int32 tokens walking one random cycle over the consecutive ``ids``
    (module doc)."""
    if ids.step != 1 or len(ids) < 2:
        raise ValueError(f"chain_stream needs two or more consecutive ids, got {ids}")
    cycle = rng.permutation(np.arange(ids.start, ids.stop))
    successor = np.empty(ids.stop, dtype=np.int64)
    successor[cycle] = np.roll(cycle, -1)
    follow, noise = rng.random(n_tokens) < FOLLOW, rng.integers(ids.start, ids.stop, n_tokens)
    out = np.empty(n_tokens, dtype=np.int32)
    out[0] = noise[0]
    for i in range(1, n_tokens):
        out[i] = successor[out[i - 1]] if follow[i] else noise[i]
    return out
