"""The accuracy guard of the served mode: the served engine's greedy tokens against the
reference engine's (transformers ``generate``, greedy, fp32) on the same weights, for a few
seeded token-id prompts, so a fast wrong engine cannot pass.

The served tokens are asked while the server runs (``temperature 0``, ``ignore_eos``,
``return_token_ids``: vLLM's and tfserver's ``choices[0].token_ids``); the reference is built
after the server has stopped, so the two never share the chip's memory. Agreement is the share
of output positions whose token is the reference's (``prefix_agreement``: the mean share before
the first difference); below the precision's ``agreement_target`` the run is marked (FINISHED
``converged`` false, the sweep's ``accuracy_guard.agree`` false, said on the report).
"""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from chipperf_runtime.inference.errors import CaseError

FIRST_ID = 3   # after the pad, bos and eos ids of the case's tokenizer


@dataclass(frozen=True)
class GuardSpec:
    prompts: int
    prompt_tokens: int
    output_tokens: int
    vocab_size: int
    seed: int

    def prompt_ids(self) -> list[list[int]]:
        draw = random.Random(self.seed)
        return [[draw.randrange(FIRST_ID, self.vocab_size) for _ in range(self.prompt_tokens)]
                for _ in range(self.prompts)]


def served_tokens(base_url: str, model: str, prompts: Sequence[list[int]],
                  tokens: int) -> list[list[int]]:
    return [_complete(base_url, model, prompt, tokens) for prompt in prompts]


def _complete(base_url: str, model: str, prompt: list[int], tokens: int) -> list[int]:
    body = {"model": model, "prompt": prompt, "max_tokens": tokens, "temperature": 0.0,
            "ignore_eos": True, "return_token_ids": True}
    request = urllib.request.Request(base_url + "/v1/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=300) as reply:
            choice = json.loads(reply.read())["choices"][0]
    except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError) as exc:
        raise CaseError(f"accuracy guard: {base_url}/v1/completions gave no completion: "
                        f"{exc}") from exc
    ids = choice.get("token_ids")
    if not isinstance(ids, list):
        raise CaseError("accuracy guard: the server returned no token_ids (return_token_ids): "
                        "use an engine whose server supports it (vLLM >= 0.11, tfserver)")
    return [int(t) for t in ids]


def reference_tokens(model_dir: Path, prompts: Sequence[list[int]], tokens: int,
                     device: Any) -> list[list[int]]:
    """transformers ``generate``, greedy, fp32, on ``device``, one prompt at a time."""
    import torch
    from transformers import AutoModelForCausalLM

    reference: Any = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)
    reference = reference.to(device).eval()
    out = []
    with torch.inference_mode():
        for prompt in prompts:
            ids = torch.tensor([prompt], device=device)
            made = reference.generate(ids, attention_mask=torch.ones_like(ids),
                                      max_new_tokens=tokens, min_new_tokens=tokens,
                                      do_sample=False, eos_token_id=None)
            out.append([int(t) for t in made[0, len(prompt):]])
    del reference
    return out


def agreement(served: Sequence[list[int]], reference: Sequence[list[int]],
              target: Optional[float]) -> dict[str, Any]:
    """Token and prefix agreement of the served tokens with the reference's (pure)."""
    same = total = 0
    prefixes = []
    for ours, theirs in zip(served, reference):
        hits = [a == b for a, b in zip(ours, theirs)] + [False] * (len(theirs) - len(ours))
        same, total = same + sum(hits), total + len(theirs)
        prefixes.append((hits.index(False) if False in hits else len(hits)) / max(len(theirs), 1))
    share = same / total if total else 0.0
    return {"prompts": len(reference), "tokens": total, "token_agreement": share,
            "prefix_agreement": sum(prefixes) / len(prefixes) if prefixes else 0.0,
            "target": target, "agree": target is not None and share >= target,
            "reference": "transformers generate, greedy, fp32, same weights"}
