"""Corpus BLEU-4 (Papineni et al.; brevity penalty, no smoothing) in plain Python, from
statistics that add up over sentences, batches and ranks: ``stats`` of one sentence pair,
``bleu`` of the summed statistics (percent)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

ORDER = 4
WIDTH = 2 * ORDER + 2          # matches and totals per n-gram order, hypothesis and reference length


def ngrams(words: Sequence[str], n: int) -> Counter:
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def stats(hypothesis: Sequence[str], reference: Sequence[str]) -> list[float]:
    """[matches_1..4, totals_1..4, hypothesis length, reference length] (clipped matches)."""
    matches = [sum((ngrams(hypothesis, n) & ngrams(reference, n)).values()) for n in range(1, ORDER + 1)]
    totals = [max(0, len(hypothesis) - n + 1) for n in range(1, ORDER + 1)]
    return [*map(float, matches), *map(float, totals), float(len(hypothesis)), float(len(reference))]


def bleu(summed: Sequence[float]) -> float:
    """BLEU in percent of the summed ``stats``; 0 when an order has no match."""
    matches, totals = summed[:ORDER], summed[ORDER:2 * ORDER]
    hyp, ref = summed[2 * ORDER], summed[2 * ORDER + 1]
    if hyp == 0 or any(m == 0 for m in matches):
        return 0.0
    precision = sum(math.log(m / t) for m, t in zip(matches, totals)) / ORDER
    brevity = 1.0 if hyp > ref else math.exp(1 - ref / hyp)
    return 100.0 * brevity * math.exp(precision)
