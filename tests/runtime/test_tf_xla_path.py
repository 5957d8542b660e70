"""resnet50/tensorflow2's XLA path (``jit_compile = True``) on the CPU backend: the case's own
``train.compile_steps`` compiles the train step with XLA, records the HLO module it compiled,
trains a few steps as the graph executor does, and an op XLA cannot compile stops the case with
XLA's reason instead of running outside XLA. And the device layer's TPU path on this CPU build:
an error naming the vendor and what is missing, never the CPU.

A small Keras network stands in for the ResNet (XLA compiles the tiny preset's 5,000-instruction
step in minutes on a loaded 2-core machine; the step code is the same). TensorFlow runs in one
child process (see test_resnet50_tf_model.py: not next to Paddle in the pytest process)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "training" / "benchmarks" / "resnet50" / "tensorflow2"

PROBE = textwrap.dedent("""
    import json, os, sys, types
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    sys.path[:0] = [sys.argv[1], sys.argv[2]]
    import keras, tensorflow as tf
    import train, xla_step
    from chipperf_runtime.training.driver import ConfigError

    cfg = types.SimpleNamespace(momentum=0.9, nesterov=False, weight_decay=1e-4)
    images = tf.random.stateless_normal([3, 8, 16, 16, 3], seed=(1, 2))
    labels = tf.constant([[0, 1, 2, 3, 4, 5, 6, 7]] * 3, dtype=tf.int32)

    def run(jit):
        keras.utils.set_random_seed(7)
        strategy = tf.distribute.get_strategy()
        model = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(8, 3),
                                  keras.layers.BatchNormalization(), keras.layers.ReLU(),
                                  keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(10)])
        optimizer = train.make_optimizer(cfg, 0.05, model, "fp32")
        loop = train.Loop(strategy, model, optimizer, None, None, None, 8, 8, 3)
        train.compile_steps(loop, 10, 0.1, jit)
        losses = [float(loop.train_step(images[i], labels[i])) for i in range(3)]
        return {"compiler": loop.compiler, "losses": losses}

    @tf.function(jit_compile=True, input_signature=[tf.TensorSpec([2], tf.float32)])
    def uncompilable(x):
        return tf.strings.as_string(x)
    try:
        xla_step.compiled_record(uncompilable, [tf.TensorSpec([2], tf.float32)])
        refused = None
    except ConfigError as e:
        refused = str(e)
    from chipperf_runtime.device import DeviceError
    from chipperf_runtime.device.tensorflow import open_tf_device
    try:
        open_tf_device(0, {"CHIPPERF_VENDOR": "tpu", "CHIPPERF_DEVICE": "tpu"})
        no_tpu = None
    except DeviceError as e:
        no_tpu = str(e)
    print(json.dumps({"xla": run(True), "graph": run(False), "refused": refused,
                      "no_tpu": no_tpu}))
""")


@pytest.fixture(scope="module")
def probe() -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, str(CASE), str(REPO)],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_train_step_is_compiled_by_xla_and_says_so(probe: dict) -> None:
    record = probe["xla"]["compiler"]
    assert (record["compiler"], record["jit_compile"]) == ("XLA", True)
    assert record["hlo_module"].startswith("a_inference_train_step")
    assert record["hlo_instructions"] > 50          # the whole step: forward, backward, update
    assert probe["graph"]["compiler"] == {"compiler": "none (TensorFlow graph executor)",
                                          "jit_compile": False}


def test_xla_trains_as_the_graph_executor_does(probe: dict) -> None:
    # Same seed, same batches: XLA fuses and reorders fp32 arithmetic, so the losses agree
    # closely, not bit for bit; a wrong compiled step (a missing update) moves them by far more.
    xla, graph = probe["xla"]["losses"], probe["graph"]["losses"]
    assert len(xla) == len(graph) == 3
    for a, b in zip(xla, graph):
        assert abs(a - b) <= 1e-3 * abs(b), (xla, graph)
    assert xla[-1] < xla[0]


def test_an_op_xla_cannot_compile_stops_the_case_with_xlas_reason(probe: dict) -> None:
    refused = probe["refused"]
    assert refused.startswith("jit_compile = True: XLA cannot compile the train step: ")
    assert "AsString" in refused and refused.endswith("set jit_compile = False to run it "
                                                      "without XLA")


def test_the_tpu_device_on_a_cpu_build_is_an_error_not_the_cpu(probe: dict) -> None:
    message = probe["no_tpu"]
    assert re.match(r"vendor 'tpu' names device 'tpu' \(Google TPUs \(libtpu\)\), but "
                    r"TensorFlow [0-9.]+ cannot initialise a TPU system here \(", message)
    assert "this build has no TPU support (tensorflow-tpu) or no TPU is attached" in message
    assert message.endswith("(the case does not fall back to the CPU)")
