"""llama2_7b_finetune on the host, one process: the CI size fine-tunes its LoRA adapters
(FlagPerf's r 8 on q_proj and v_proj, the base frozen) on prepare_data.py's generated
SAMSum-layout dialogues to its eval-loss target, and FINISHED records the trainable and total
parameter counts and LoRA's FLOPs per token. Needs torch, transformers and peft."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from caserun import Case, check_converged, perflog_events


def test_the_ci_size_fine_tunes_to_its_target(tmp_path: Path) -> None:
    from chipperf_runtime.training.llmtrain import arch

    case = Case("llama2_7b_finetune", "pytorch")
    subprocess.run([sys.executable, str(case.dir / "prepare_data.py"), "--output", str(tmp_path),
                    "--train", "400", "--val", "40"], check=True, timeout=60)
    result = case.run_config(tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    finished = check_converged(perflog_events(result.stdout))
    tiny = {"vocab_size": 259, "hidden_size": 128, "intermediate_size": 352,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4}
    assert finished["parameters"] == {"trainable": 2 * 2 * 8 * (128 + 128),
                                      "total": arch.parameter_count(tiny) + 8192}
    assert finished["flops_per_unit"] == arch.lora_train_flops_per_token(
        tiny, 128, 8, ["q_proj", "v_proj"])
