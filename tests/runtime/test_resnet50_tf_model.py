"""The resnet50/tensorflow2 model: the full-size ResNet-50 is Keras' ResNet-50 (built by
``keras.applications.ResNet50``: same weights, names and shapes, 25,636,712 parameters), its
FLOPs match an independent count, the CI size is built by the same Keras code; and how ranks
share the image folders.

TensorFlow runs in one child process (module fixture): importing it into the pytest process
next to Paddle crashes that process (see the case README)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "training" / "benchmarks" / "resnet50" / "tensorflow2"
if str(REPO / "training" / "benchmarks") not in sys.path:
    sys.path.insert(0, str(REPO / "training" / "benchmarks"))


def load(name: str) -> ModuleType:
    """The case's TensorFlow-free module ``name``.py under a name no other case uses."""
    spec = importlib.util.spec_from_file_location(f"resnet50_tf2_{name}", CASE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


folders = load("folders")   # numpy + driver

PROBE = textwrap.dedent("""
    import json, os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import keras
    import numpy as np
    import arch
    import model as resnet
    import train

    full = resnet.build(resnet.ResNetSpec())
    ref = keras.applications.ResNet50(weights=None)
    blocks, width = arch.PRESETS["tiny"]
    tiny = resnet.build(resnet.ResNetSpec(num_classes=10, image_size=32, blocks=blocks,
                                          base_width=width))
    logits = tiny(np.zeros((2, 32, 32, 3), np.float32), training=False)
    bf16 = resnet.build(resnet.ResNetSpec(num_classes=10, image_size=32, blocks=blocks,
                                          base_width=width, dtype_policy="mixed_bfloat16"))
    schedule = train.WarmupCosine(0.4, 10, 110)
    print(json.dumps({
        "counts": resnet.parameter_counts(full),
        "keras_count": ref.count_params(),
        "same_weights": [(w.path, list(w.shape)) for w in full.weights]
                        == [(w.path, list(w.shape)) for w in ref.weights],
        # the input layers' names differ (Keras numbers each new one: input_layer_1 ...)
        "same_layers": [l.name for l in full.layers[1:]] == [l.name for l in ref.layers[1:]],
        "flops": resnet.forward_flops(full),
        "train_flops": resnet.train_flops(full),
        "tiny_counts": resnet.parameter_counts(tiny),
        "tiny_flops": resnet.forward_flops(tiny),
        "tiny_logits": list(logits.shape),
        "bf16_conv": bf16.get_layer("conv1_conv").compute_dtype,
        "bf16_dense": bf16.get_layer("predictions").compute_dtype,
        "bf16_logits": bf16.layers[-1].compute_dtype,
        "momentum": sorted({l.momentum for l in tiny.layers if hasattr(l, "moving_mean")}),
        "published": [resnet.ResNetSpec().published,
                      resnet.ResNetSpec(blocks=blocks, base_width=width).published],
        "lr": [float(schedule(s)) for s in (0, 4, 9, 10, 60, 109, 200)],
    }))
""")


@pytest.fixture(scope="module")
def probe() -> dict:
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=CASE, capture_output=True,
                            text=True, timeout=600,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                                 "PYTHONPATH": f"{CASE}:{REPO / 'training' / 'benchmarks'}"})
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def resnet50_v1_macs(size: int = 224, classes: int = 1000) -> int:
    """Multiply-accumulates of Keras' ResNet-50 v1, from the paper's table (stride on the
    first 1x1 convolution of stages 3-5)."""
    h = (size + 6 - 7) // 2 + 1                      # conv1 7x7/2, pad 3
    macs = h * h * 7 * 7 * 3 * 64
    h = (h + 2 - 3) // 2 + 1                         # max pool 3x3/2, pad 1
    cin = 64
    for stage, (blocks, f) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512))):
        for block in range(blocks):
            stride = 2 if block == 0 and stage > 0 else 1
            h = (h - 1) // stride + 1
            if block == 0:
                macs += h * h * cin * 4 * f          # projection shortcut
            macs += h * h * (cin * f + 9 * f * f + f * 4 * f)
            cin = 4 * f
    return macs + cin * classes


def test_full_size_is_keras_resnet50(probe: dict) -> None:
    assert probe["counts"] == {"trainable": 25_583_592, "non_trainable": 53_120,
                               "total": 25_636_712}
    assert probe["keras_count"] == 25_636_712
    assert probe["same_weights"] and probe["same_layers"]
    assert probe["published"] == [True, False]


def test_flops_match_an_independent_count(probe: dict) -> None:
    assert probe["flops"] == 2 * resnet50_v1_macs() == 7_715_946_496  # 3.86 GMACs
    assert probe["train_flops"] == 3 * probe["flops"]


def test_tiny_is_the_same_code_smaller(probe: dict) -> None:
    assert probe["tiny_logits"] == [2, 10]
    assert 0 < probe["tiny_counts"]["total"] < probe["counts"]["total"] // 40
    assert 0 < probe["tiny_flops"] < probe["flops"]


def test_mixed_precision_keeps_float32_logits(probe: dict) -> None:
    """Keras' layers compute in bfloat16 (its classifier too); the added last layer casts the
    logits to float32."""
    assert probe["bf16_conv"] == probe["bf16_dense"] == "bfloat16"
    assert probe["bf16_logits"] == "float32"


def test_batchnorm_momentum_is_the_specs(probe: dict) -> None:
    assert probe["momentum"] == [0.99]   # ResNetSpec's default; the case config sets it


def test_warmup_then_cosine_to_zero(probe: dict) -> None:
    lr = probe["lr"]
    assert lr[0] == pytest.approx(0.04) and lr[1] == pytest.approx(0.2)
    assert lr[2] == pytest.approx(0.4) and lr[3] == pytest.approx(0.4, rel=1e-3)
    assert 0 < lr[4] < 0.4 and lr[5] == pytest.approx(0.0, abs=1e-6)
    assert lr[6] == pytest.approx(0.0, abs=1e-6)


def test_case_yaml_states_the_full_size_numbers(probe: dict) -> None:
    meta = yaml.safe_load((CASE / "case.yaml").read_text())
    assert meta["work_unit"] == "samples"
    assert meta["full_size"] == {"params": probe["counts"]["total"],
                                 "flops_per_unit": probe["train_flops"]}


# ---------------------------------------------------------------- folders.py (no TensorFlow)


@pytest.mark.parametrize("n, world", [(1438, 2), (1438, 3), (10, 1), (7, 4)])
def test_every_rank_gets_the_same_number_of_distinct_train_images(n: int, world: int) -> None:
    shards = [folders.epoch_indices(n, folders.Shard(r, world), seed=1, epoch=3)
              for r in range(world)]
    assert {len(s) for s in shards} == {n // world}
    together = np.concatenate(shards)
    assert len(set(together.tolist())) == len(together)
    again = folders.epoch_indices(n, folders.Shard(0, world), seed=1, epoch=3)
    other_epoch = folders.epoch_indices(n, folders.Shard(0, world), seed=1, epoch=4)
    assert (again == shards[0]).all() and not (other_epoch == shards[0]).all()


@pytest.mark.parametrize("n, world", [(359, 2), (359, 16), (3, 3)])
def test_val_is_evaluated_once_over_all_ranks(n: int, world: int) -> None:
    shards = [folders.val_indices(n, folders.Shard(r, world)) for r in range(world)]
    assert sorted(np.concatenate(shards).tolist()) == list(range(n))


def test_steps_per_epoch_drop_the_remainder() -> None:
    assert folders.steps_per_epoch(1438, 2, 16) == 44
    assert folders.steps_per_epoch(1438, 1, 32) == 44


def test_read_splits_numbers_classes_in_sorted_order(tmp_path: Path) -> None:
    for split in ("train", "val"):
        for name in ("n02", "n01"):
            (tmp_path / split / name).mkdir(parents=True)
            (tmp_path / split / name / "a.JPEG").write_bytes(b"")
    train, val = folders.read_splits(tmp_path)
    assert train.classes == ("n01", "n02") == val.classes
    assert train.labels == (0, 1) and train.paths[0].endswith("train/n01/a.JPEG")
    with pytest.raises(Exception, match="train_augment 'mixup' is unknown"):
        folders.check_augment("mixup")
