"""The LLM cases on the host, one process each: llama3_8B trains from FlagPerf's Megatron
``.bin/.idx`` data (written by textlm.megatron's writer, as the gpt2 test writes it), and the
cases added on llmtrain (aquila2_7b, qwen1.5_MoE, chatglm3_6b, baichuan2_13b) train their
tiny CI size to the target.

The corpus is the cases' own prepare_data.py output (byte-level ids, text already on the
machine); the vendor configs are the cpu CI ones. Needs torch and transformers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from caserun import Case, check_converged, init_end, perflog_events, summary

CASES = {name: Case(name, "pytorch") for name in ("llama3_8B", "aquila2_7b", "qwen1.5_MoE",
                                                   "chatglm3_6b", "baichuan2_13b")}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("llm_cases")
    subprocess.run([sys.executable, str(CASES["aquila2_7b"].dir / "prepare_data.py"), "--output",
                    str(out)], check=True, timeout=300)
    return out


def megatron_folder(corpus: Path, out: Path) -> Path:
    """FlagPerf's LLM data layout from the CI corpus: its train tokens as one Megatron
    dataset, one document per sequence (split after each </s>, id 2), no eval folder."""
    from chipperf_runtime.training.textlm import megatron

    train = np.concatenate([np.load(f) for f in sorted((corpus / "train").glob("*.npy"))])
    documents = np.split(train, np.flatnonzero(train == 2) + 1)
    megatron.write(out / "wudao_llama3bpe_content_document", [d for d in documents if len(d)])
    return out


def test_llama3_trains_from_flagperf_s_megatron_data(corpus: Path, tmp_path: Path) -> None:
    data = megatron_folder(corpus, tmp_path)
    result = CASES["llama3_8B"].run_config(data, "--set", "max_steps=3",
                                           "--set", "eval_every_steps=3")
    assert result.returncode == 0, result.stderr[-3000:]
    events = perflog_events(result.stdout)
    finished, init = events[-1].value, init_end(events)
    assert events[-1].name == "FINISHED" and finished["work_done"] == 3 * 32 * 128
    train_tokens = sum(len(np.load(f)) for f in (corpus / "train").glob("*.npy"))
    windows = (train_tokens - 1) // 128
    assert init["eval_samples"] == windows // 20 and init["train_samples"] == windows - windows // 20
    assert finished["metric"]["name"] == "eval_loss" and np.isfinite(finished["metric"]["value"])


@pytest.mark.parametrize("name", ["aquila2_7b", "qwen1.5_MoE", "chatglm3_6b", "baichuan2_13b"])
def test_the_ci_size_reaches_its_target(name: str, corpus: Path) -> None:
    result = CASES[name].run_config(corpus)
    assert result.returncode == 0, result.stderr[-3000:]
    events = perflog_events(result.stdout)
    finished = check_converged(events)
    print(name, summary(events))
    assert finished["work_unit"] == "tokens" and finished["flops_per_unit"] > 0
