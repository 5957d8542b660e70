"""CI data for stable_diffusion_v1_4: prompts and a CLIP-format tokenizer, made offline.

    python3 prepare_prompts.py SRC OUT

Writes OUT/prompts.txt (the first sentences of the text files in SRC, e.g. Debian's
/usr/share/common-licenses, cut to 12 words each) and OUT/tokenizer/{vocab.json, merges.txt}:
a byte-level CLIP vocabulary with no merges (every character a token: the 512 byte tokens
CLIP's own vocabulary starts with, plus <|startoftext|> and <|endoftext|>). Real runs use
CLIP's tokenizer files instead (stable-diffusion-v1-4's tokenizer/ folder).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def byte_characters() -> list[str]:
    """GPT-2 / CLIP's printable stand-ins for the 256 byte values, in their order."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    extra = [b for b in range(256) if b not in printable]
    return [chr(c) for c in printable] + [chr(256 + i) for i in range(len(extra))]


def vocabulary() -> dict[str, int]:
    chars = byte_characters()
    tokens = chars + [c + "</w>" for c in chars] + ["<|startoftext|>", "<|endoftext|>"]
    return {token: index for index, token in enumerate(tokens)}


def sentences(src: Path, limit: int = 64) -> list[str]:
    out = []
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="ignore")
        for sentence in re.split(r"(?<=[.!?])\s+", " ".join(text.split())):
            words = sentence.split()[:12]
            if len(words) >= 4:
                out.append(" ".join(words))
        if len(out) >= limit:
            break
    return out[:limit]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    src, out = Path(argv[0]), Path(argv[1])
    prompts = sentences(src)
    if not prompts:
        print(f"prepare_prompts: no sentences in {src}", file=sys.stderr)
        return 1
    (out / "tokenizer").mkdir(parents=True, exist_ok=True)
    (out / "prompts.txt").write_text("\n".join(prompts) + "\n", encoding="utf-8")
    (out / "tokenizer" / "vocab.json").write_text(json.dumps(vocabulary()), encoding="utf-8")
    (out / "tokenizer" / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    print(f"{out}: {len(prompts)} prompts, tokenizer of {len(vocabulary())} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
