"""llava1.5_7b on the host, one process: the CI size runs FlagPerf's two stages in one run
(stage "both"): pretrain (the projector under the frozen decoder, to its tiny target), then
finetune from that projector (the projector and the LLM train, the CLIP tower frozen), which
learns the generated pictures' captions to its eval-loss target, below what the text alone
allows (so it reads the pictures). FINISHED records each stage's figures (tokens, trainable and
total counts, eval loss, FLOPs of its samples) and the two together. Needs torch, transformers
and Pillow."""

from __future__ import annotations

import sys
from pathlib import Path

from caserun import Case, check_converged, perflog_events

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def test_the_ci_size_pretrains_then_finetunes_to_its_target_reading_the_pictures(
        tmp_path: Path) -> None:
    from chipperf_runtime.training.llmtrain import llava_arch, llava_data

    llava_data.write_generated(tmp_path, 240, seed=1234, image_size=28)
    result = Case("llava1.5_7b", "pytorch").run_config(tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    finished = check_converged(perflog_events(result.stdout))
    # from the text alone the best caption loss is (ln 8 + ln 4) nats over its ~42 targets
    assert finished["metric"]["value"] < 0.08
    assert finished["execution"]["stage"] == "both"
    vision = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
              "image_size": 28, "patch_size": 14}
    text = {"vocab_size": 261, "hidden_size": 128, "intermediate_size": 352,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4}
    stages = finished["stages"]
    assert list(stages) == ["pretrain", "finetune"]
    for name, stage in stages.items():
        assert stage["converged"] and stage["execution"]["stage"] == name
        assert stage["execution"]["prompt_version"] == "plain"
        assert stage["parameters"] == llava_arch.parameter_counts(vision, text, name)
        assert stage["flops_per_unit"] > llava_arch.llm_train_flops(text, 1, name)
    assert stages["pretrain"]["parameters"]["trainable"] < \
        stages["finetune"]["parameters"]["trainable"] < finished["parameters"]["total"]
    # the run's figures: both stages' work over both stages' windows, FLOPs weighted by work
    work = sum(s["work_done"] for s in stages.values())
    seconds = sum(s["train_time_s"] for s in stages.values())
    flops = sum(s["flops_per_unit"] * s["work_done"] for s in stages.values())
    assert finished["work_done"] == work
    assert abs(finished["throughput"]["raw"] - work / seconds) < 1e-6 * work / seconds
    assert abs(finished["flops_per_unit"] * work - flops) < 1e-6 * flops
    assert finished["metric"] == stages["finetune"]["metric"]
