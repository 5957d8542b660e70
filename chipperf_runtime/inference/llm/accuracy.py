"""The engine against the fp32 eager reference of the same model, on the same requests.

- Greedy-decoding token agreement: each request is decoded greedily, alone (batch 1, no
  padding), by the engine and by the reference; agreement is the share of output positions
  whose token is the reference's token. ``prefix_agreement`` is the mean share of each
  request's tokens before its first difference (after one, the contexts differ).
- Deviation: one teacher-forced forward pass over prompt + the reference's output, engine and
  reference logits compared at every position (max and mean |diff|, bound = tolerance *
  max |reference logits|), as for the other inference cases. Engines that expose no logits
  (vllm) report it as not measured.
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch

from chipperf_runtime.inference.llm.engines import Generator
from chipperf_runtime.inference.llm.prompts import Request
from chipperf_runtime.inference.stats import Deviation


def compare(engine: Generator, reference: Generator, requests: Sequence[Request],
            device: torch.device) -> dict:
    same = total = 0
    prefixes = []
    dev: Optional[Deviation] = Deviation()
    for r in requests:
        ours = engine.generate([r])[0].tokens
        theirs = reference.generate([r])[0].tokens
        hits = [a == b for a, b in zip(ours, theirs)]
        same, total = same + sum(hits), total + len(theirs)
        prefixes.append((hits.index(False) if False in hits else len(hits)) / len(theirs))
        ids = torch.tensor([list(r.prompt) + list(theirs)], dtype=torch.long, device=device)
        dev = _add(dev, engine.logits(ids), reference.logits(ids))
    return {"requests": len(requests), "tokens": total, "token_agreement": same / total,
            "prefix_agreement": sum(prefixes) / len(prefixes), "deviation": dev}


def _add(dev: Optional[Deviation], out: Optional[torch.Tensor],
         ref: Optional[torch.Tensor]) -> Optional[Deviation]:
    if dev is None or out is None or ref is None:
        return None
    out, ref = out.float(), ref.float()
    finite = torch.isfinite(out)
    diff = (out - ref).abs()[finite]
    return dev.add(float(diff.max()) if diff.numel() else 0.0, float(diff.sum()), out.numel(),
                   float(ref.abs().max()), int((~finite).sum()))


def reference_report(dev: Optional[Deviation], tolerance: float, engine: str) -> dict:
    if dev is not None:
        return {**dev.report(tolerance), "compared": "logits, teacher-forced on the reference's "
                "greedy output"}
    return {"max_abs_diff": None, "mean_abs_diff": None, "bound": None, "tolerance": tolerance,
            "within_bound": True, "compared": f"not measured: engine {engine} exposes no "
            "logits (greedy token agreement is the check)"}
