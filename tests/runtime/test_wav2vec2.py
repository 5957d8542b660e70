"""The wav2vec2 case's pieces without training: case.yaml's full-size numbers are the built
model's (and the FLOP counter agrees with the analytic count), masks and negatives are what
wav2vec 2.0 draws, the contrastive accuracy scores what it should, and a wrong data folder is
one error naming what is missing."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import wave
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import yaml
from casemodules import BENCHMARKS, REPO, load_case_module

CASE = "wav2vec2/pytorch"


def module(name: str) -> ModuleType:
    # the case's modules import each other by these (unique) names
    for dependency in ("w2v_data", "w2v_batches", "w2v_model"):
        load_case_module(CASE, dependency)
    return load_case_module(CASE, name)


def analytic_forward_flops(preset: dict, samples: int) -> int:
    """2 FLOPs per multiply-accumulate: the conv encoder, the feature projection, the
    positional conv (one frame of padding kept, then cut), the transformer's matrix products
    and attention, and the three heads (context projection, quantizer logits, target
    projection)."""
    flops, length, channels = 0, samples, 1
    for out, kernel, stride in zip(preset["conv_dim"], preset["conv_kernel"], preset["conv_stride"]):
        length = (length - kernel) // stride + 1
        flops += 2 * length * out * channels * kernel
        channels = out
    t, h, ffn = length, preset["hidden_size"], preset["intermediate_size"]
    flops += 2 * t * channels * h
    flops += 2 * (t + 1) * h * (h // preset["num_conv_pos_embedding_groups"]) \
        * preset["num_conv_pos_embeddings"]
    flops += preset["num_hidden_layers"] * (2 * t * (4 * h * h + 2 * h * ffn) + 4 * t * t * h)
    codes = preset["num_codevectors_per_group"] * preset["num_codevector_groups"]
    return flops + 2 * t * (h * preset["proj_codevector_dim"] + channels * codes
                            + preset["codevector_dim"] * preset["proj_codevector_dim"])


def test_case_yaml_holds_the_full_size_model_built_on_meta() -> None:
    import torch

    model = module("w2v_model")
    full = model.FULL_SIZE
    preset = model.PRESETS[full["model_size"]]
    with torch.device("meta"):
        net = model.w2v_model(preset)
    params = sum(p.numel() for p in net.parameters())
    forward = model.forward_flops(preset, full["crop_samples"])
    meta = yaml.safe_load((BENCHMARKS / CASE / "case.yaml").read_text())
    assert meta["work_unit"] == "samples"
    assert meta["full_size"] == {"params": params, "flops_per_unit": 3 * forward}
    assert forward == analytic_forward_flops(preset, full["crop_samples"]) == 148_721_690_624
    assert model.frames(preset, full["crop_samples"]) == 499      # 20 ms frames of 10 s


def test_the_base_config_defaults_to_the_full_size_model() -> None:
    from chipperf_runtime.training.driver import load_case_config

    model = module("w2v_model")
    config = load_case_config(BENCHMARKS / CASE / "config", None)
    assert {k: config[k] for k in model.FULL_SIZE} == model.FULL_SIZE
    assert config.target_accuracy["base"] == 0.605        # FlagPerf's target_acc


def test_samples_for_inverts_frames() -> None:
    model = module("w2v_model")
    preset = model.PRESETS["base"]
    for wanted in (1, 20, 499):
        least = model.samples_for(preset, wanted)
        assert model.frames(preset, least) == wanted and model.frames(preset, least - 1) < wanted


def masking(batches: ModuleType, frames: int = 49) -> object:
    return batches.Masking(0.65, 3, 10, lambda samples: frames)


def test_masks_cover_about_the_masked_share_and_negatives_are_other_masked_frames() -> None:
    batches = module("w2v_batches")
    rng = np.random.default_rng(0)
    masks, negatives = batches.masks_and_negatives(masking(batches), 16000, 8, rng)
    assert masks.shape == (8, 49) and negatives.shape == (8, 49, 10)
    assert 0.3 < masks.mean() < 0.65                     # spans overlap: below mask_prob
    for row in range(8):
        masked = set(np.flatnonzero(masks[row]) + row * 49)
        for frame in np.flatnonzero(masks[row]):
            drawn = set(negatives[row, frame].tolist())
            assert drawn <= masked and frame + row * 49 not in drawn


def test_a_short_crop_still_masks_two_frames() -> None:
    batches = module("w2v_batches")
    mask = batches.time_mask(masking(batches), 4, np.random.default_rng(1))
    assert mask.sum() >= 2


class Outputs:
    def __init__(self, context: object, targets: object) -> None:
        self.projected_states, self.projected_quantized_states = context, targets


def test_contrastive_accuracy_counts_a_collapsed_codebook_as_wrong() -> None:
    import torch

    batches, train = module("w2v_batches"), module("w2v_train")
    masks, negatives = batches.masks_and_negatives(masking(batches, 20), 0, 2,
                                                   np.random.default_rng(2))
    batch = train.Tensors(torch.zeros(2, 1), torch.from_numpy(masks), torch.from_numpy(negatives),
                          int(masks.sum()))
    codes = torch.nn.functional.one_hot(torch.arange(40) % 20, 32).float().view(2, 20, 32)
    right, seen = train.contrastive_correct(Outputs(codes, codes), batch)
    assert right == seen == int(masks.sum())                       # context = own target
    right, _ = train.contrastive_correct(Outputs(codes.roll(1, dims=1), codes), batch)
    assert right == 0                                              # closer to a neighbour
    same = torch.ones(2, 20, 32)
    right, _ = train.contrastive_correct(Outputs(same, same), batch)
    assert right == 0                                              # every negative equal


def write_wav(path: Path, samples: int, rate: int = 16000, seed: int | None = None) -> None:
    """Silence, or (with ``seed``) noise of that seed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    audio = np.zeros(samples, dtype="<i2") if seed is None else \
        np.random.default_rng(seed).integers(-3000, 3000, samples).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(audio.tobytes())


def write_train_subset(folder: Path, count: int = 48) -> None:
    """``folder/train.tsv`` over ``count`` noise utterances of 1.1-1.5 s, each its own."""
    lengths = np.random.default_rng(5).integers(17600, 24000, count)
    rows = [f"train/{n}.wav\t{length}" for n, length in enumerate(lengths)]
    for n, length in enumerate(lengths):
        write_wav(folder / "train" / f"{n}.wav", int(length), seed=n)
    (folder / "train.tsv").write_text(f"{folder}\n" + "\n".join(rows) + "\n")


def test_the_ranks_of_a_world_train_on_the_one_rank_global_batch(tmp_path: Path) -> None:
    """Rank r of a world keeps rows r * local.. of the global batch drawn whole (audio, masks,
    negatives re-based to its rows); the loss's denominator is the global masked count."""
    batches, data, model = module("w2v_batches"), module("w2v_data"), module("w2v_model")
    write_train_subset(tmp_path)
    subset = data.open_subset(tmp_path, "train", 16000, "prepare_data.py")
    preset = model.PRESETS["tiny"]
    masking = batches.Masking(preset["mask_time_prob"], preset["mask_time_length"],
                              preset["num_negatives"], lambda samples: model.frames(preset, samples))
    for epoch, index in ((1, 0), (1, 2), (2, 1)):
        whole = batches.TrainPlan(subset, 16000, masking, 16, 0, 1, 1234, epoch).batch(index)
        for world in (2, 4):
            shares = [batches.TrainPlan(subset, 16000, masking, 16, rank, world, 1234,
                                        epoch).batch(index) for rank in range(world)]
            frames = whole.mask.shape[1]
            rebased = [s.negatives + r * (16 // world) * frames for r, s in enumerate(shares)]
            assert np.array_equal(np.concatenate([s.audio for s in shares]), whole.audio)
            assert np.array_equal(np.concatenate([s.mask for s in shares]), whole.mask)
            assert np.array_equal(np.concatenate(rebased), whole.negatives)
            assert {s.masked_total for s in shares} == {whole.masked_total} == \
                {int(whole.mask.sum())}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_two_ddp_ranks_step_as_one_rank_does(tmp_path: Path) -> None:
    """Three steps of train_step on two gloo ranks (DDP, 8 rows each) leave the parameters
    where the same three global batches of 16 leave them on one rank (Gumbel noise and the
    per-rank diversity term out; see w2v_ddp_steps.py). Each rank dividing its loss by its
    own masked-frame count (before the global count) left them 2.5e-4 apart."""
    write_train_subset(tmp_path)
    out = tmp_path / "result.json"
    run = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2",
         f"--master_port={free_port()}", str(Path(__file__).parent / "w2v_ddp_steps.py"),
         str(tmp_path), str(out)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["moved"] > 1e-3, result
    assert result["max_diff"] < 1e-6, result


def test_a_manifest_reads_crops_from_a_moved_root(tmp_path: Path) -> None:
    data = module("w2v_data")
    write_wav(tmp_path / "dev" / "a.wav", 20000)
    write_wav(tmp_path / "dev" / "b.wav", 9000)
    (tmp_path / "dev.tsv").write_text("/elsewhere/LibriSpeech\ndev/a.wav\t20000\ndev/b.wav\t9000\n")
    subset = data.open_subset(tmp_path, "dev", 16000, "prepare_data.py")
    assert [u.path for u in subset.utterances] == [tmp_path / "dev" / "a.wav"]
    assert subset.too_short == 1
    assert data.read_crop(subset.utterances[0], 4000, 16000).shape == (16000,)


def test_a_missing_manifest_names_the_folder_and_the_file(tmp_path: Path) -> None:
    from chipperf_runtime.training.driver import DataError

    data = module("w2v_data")
    (tmp_path / "train.tsv").write_text(f"{tmp_path}\n")
    with pytest.raises(DataError) as error:
        data.open_subset(tmp_path, "dev-other", 16000, "prepare_data.py")
    assert f"{tmp_path}: manifest dev-other.tsv of subset 'dev-other' is missing (.tsv files " \
           "there: train.tsv)" in str(error.value)
    assert "<data_dir>/<subset>.tsv" in str(error.value)


def test_a_missing_audio_file_and_a_wrong_rate_are_named(tmp_path: Path) -> None:
    from chipperf_runtime.training.driver import DataError

    data = module("w2v_data")
    (tmp_path / "dev.tsv").write_text(f"{tmp_path}\ndev/a.wav\t20000\n")
    with pytest.raises(DataError, match=r"audio file .*dev/a.wav \(under the manifest's root"):
        data.open_subset(tmp_path, "dev", 16000, "prepare_data.py")
    write_wav(tmp_path / "dev" / "a.wav", 20000, rate=8000)
    subset = data.open_subset(tmp_path, "dev", 16000, "prepare_data.py")
    with pytest.raises(DataError, match="expected 16 kHz mono 16-bit PCM, got 8000 Hz"):
        data.read_crop(subset.utterances[0], 0, 16000)


def test_flagperf_s_wav2vec2_names_set_the_case_s_knobs(tmp_path: Path) -> None:
    """FlagPerf's wav2vec2 vendor names that mean the same here are mapped (a note each);
    eval_steps (micro-batches there) and update_freq (fairseq's token-budget batching) are
    accepted with a "no effect in chipperf" note each, never silently (issue 28)."""
    from chipperf.config.vendorconfig import check_vendor_config

    path = tmp_path / "config_A100x1x8.py"
    path.write_text("lr = 0.0005\nmax_update = 400000\nwarmup_updates = 32000\nclip_norm = 25.0\n"
                    "valid_subset = 'dev-other'\n")
    checked = check_vendor_config(BENCHMARKS / CASE / "config", path, "wav2vec2:pytorch",
                                  (REPO,))
    assert checked.problems == ()
    assert checked.values == {"learning_rate": 0.0005, "max_steps": 400000,
                              "warmup_steps": 32000, "grad_clip_norm": 25.0,
                              "valid_subset": "dev-other"}
    assert len(checked.notes(path)) == 4 and \
        f"{path}: clip_norm is FlagPerf's name for grad_clip_norm: set as grad_clip_norm" in \
        checked.notes(path)
    path.write_text("eval_steps = 100\nupdate_freq = 2\n")
    noted = check_vendor_config(BENCHMARKS / CASE / "config", path, "wav2vec2:pytorch",
                                (REPO,))
    assert noted.problems == () and noted.values == {}
    assert sorted(noted.no_effect) == ["eval_steps", "update_freq"]
    assert f"{path}: update_freq: no effect in chipperf: fairseq's token-budget batching" in \
        "\n".join(noted.notes(path))
