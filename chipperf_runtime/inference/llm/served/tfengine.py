"""The transformers engine of the served mode: a ``save_pretrained`` folder loaded with
``AutoModelForCausalLM`` on the vendor's device, decoding greedily one token per step.

Requests are not batched together: each request keeps its own KV cache, and one lock lets one
request's step (its prefill, or one decoded token) run at a time, so concurrent requests
interleave step by step. It is the reference engine (the same weights through transformers)
and the engine where vLLM cannot run; it is not a fast server, and its figures say which engine
made them (FINISHED ``serving.sweep.served_by``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

import torch

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


@dataclass
class TransformersServingEngine:
    """One model, shared by the server's request threads."""

    model: Any
    device: torch.device
    tokenizer: Optional[Any]
    eos_token_ids: tuple[int, ...]    # the config's eos_token_id (one id, a list, or none)
    step_lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def load(cls, folder: Path, device: torch.device, precision: str,
             seed: int) -> "TransformersServingEngine":
        from transformers import AutoModelForCausalLM

        torch.manual_seed(seed)
        model: Any = AutoModelForCausalLM.from_pretrained(str(folder), dtype=DTYPES[precision])
        model = model.to(device).eval()
        return cls(model, device, load_tokenizer(folder), eos_ids(model.config.eos_token_id))

    def encode(self, prompt: Any) -> list[int]:
        """A prompt as token ids: a list of ids as given, a string through the folder's
        tokenizer (ValueError when there is none, or the prompt is neither)."""
        if isinstance(prompt, list) and all(isinstance(t, int) for t in prompt) and prompt:
            return list(prompt)
        if isinstance(prompt, str):
            if self.tokenizer is None:
                raise ValueError("the model folder has no tokenizer: send prompts as token ids")
            return list(self.tokenizer.encode(prompt, add_special_tokens=False)) or [0]
        raise ValueError("prompt must be a string or a non-empty list of token ids")

    def decode(self, tokens: Sequence[int]) -> str:
        return "" if self.tokenizer is None else str(self.tokenizer.decode(list(tokens)))

    def stream(self, prompt: list[int], max_tokens: int, ignore_eos: bool) -> Iterator[int]:
        """Greedy output tokens, one per step, up to ``max_tokens`` (or EOS unless ignored)."""
        ids = torch.tensor([prompt], dtype=torch.long, device=self.device)
        past = None
        for _ in range(max_tokens):
            with self.step_lock, torch.inference_mode():
                out = self.model(input_ids=ids, past_key_values=past, use_cache=True)
                token = int(out.logits[0, -1].argmax())
            past = out.past_key_values
            yield token
            if not ignore_eos and token in self.eos_token_ids:
                return
            ids = torch.tensor([[token]], dtype=torch.long, device=self.device)

    def logprobs(self, ids: list[int], top: int) -> list[Optional[tuple[float, dict[int, float]]]]:
        """Per position of ``ids``, from one forward pass over them: the token's log-probability
        given the tokens before it and the ``top`` most likely ids there with theirs (None for
        the first token, which has no context): what an ``echo`` + ``logprobs`` request asks."""
        with self.step_lock, torch.inference_mode():
            tensor = torch.tensor([ids], dtype=torch.long, device=self.device)
            logp = torch.log_softmax(self.model(input_ids=tensor).logits[0, :-1].float(), dim=-1)
            chosen = logp.gather(1, tensor[0, 1:].unsqueeze(1)).squeeze(1).tolist()
            best = logp.topk(max(top, 1), dim=-1)
        ranked = [dict(zip(i, v)) for i, v in zip(best.indices.tolist(), best.values.tolist())]
        return [None, *zip(chosen, ranked)]


def eos_ids(value: Any) -> tuple[int, ...]:
    """A config's ``eos_token_id`` (an id, a list of ids as Llama 3's, or None) as a tuple."""
    if value is None:
        return ()
    return tuple(int(v) for v in value) if isinstance(value, (list, tuple)) else (int(value),)


def load_tokenizer(folder: Path) -> Optional[Any]:
    """The folder's tokenizer, or None when it has none (prompts then come as token ids)."""
    if not any((folder / name).is_file() for name in ("tokenizer.json", "tokenizer_config.json")):
        return None
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder))
