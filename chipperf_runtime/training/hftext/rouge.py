"""ROUGE-1 (Lin 2004) in plain Python, the summarisation cases' metric.

Text is tokenised as Google's ``rouge_score`` does: lower-cased, every run of characters other
than ``a-z0-9`` a separator. There is no stemming (``rouge_score``'s ``use_stemmer=True``, which
FlagPerf's t5_small uses, also counts "runs" and "run" as one word), so a score here can be a
little lower than that one on the same predictions. The F-measure of one prediction is
``2PR / (P + R)`` over the clipped unigram overlap; a corpus score is the mean over predictions,
in percent as FlagPerf reports it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable

_SEPARATORS = re.compile(r"[^a-z0-9]+")


def words(text: str) -> list[str]:
    return _SEPARATORS.sub(" ", text.lower()).split()


def rouge1(prediction: str, reference: str) -> float:
    """ROUGE-1 F-measure of one prediction against its reference, in [0, 1]."""
    pred, ref = Counter(words(prediction)), Counter(words(reference))
    overlap = sum((pred & ref).values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / sum(pred.values()), overlap / sum(ref.values())
    return 2 * precision * recall / (precision + recall)


def rouge1_sum(pairs: Iterable[tuple[str, str]]) -> tuple[float, int]:
    """(sum of ROUGE-1 F-measures in percent, number of pairs): all-reduce both, then divide."""
    scores = [100.0 * rouge1(prediction, reference) for prediction, reference in pairs]
    return sum(scores), len(scores)
