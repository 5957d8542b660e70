"""The XLA path: the train step compiled whole by XLA (``tf.function(jit_compile=True)``), and
the proof that it was, so that nothing falls back to TensorFlow's op-by-op executor unseen.

``jit_compile=True`` makes TensorFlow compile the function with XLA or fail (it never runs an
uncompilable op outside XLA); ``compiled_record`` asks XLA for the step's HLO module before
training, so an op XLA cannot compile stops the case at initialisation with XLA's message, and
the run records the module it compiled. On a TPU every program is XLA-compiled by
``TPUStrategy`` itself.
"""

from __future__ import annotations

import re
from typing import Any

import tensorflow as tf

from chipperf_runtime.training.driver import ConfigError

_MODULE = re.compile(r"^HloModule (\S+?),", re.M)
_INSTRUCTION = re.compile(r"^\s+(?:ROOT )?%\S+ = ", re.M)


def compiled_record(step: Any, specs: list[tf.TensorSpec]) -> dict[str, Any]:
    """{"compiler": "XLA", "jit_compile": True, "hlo_module": ..., "hlo_instructions": N} for
    a ``tf.function(jit_compile=True)`` step; ConfigError with XLA's reason when it cannot."""
    try:
        hlo = step.experimental_get_compiler_ir(*specs)(stage="hlo")
    except (ValueError, tf.errors.OpError) as e:
        raise ConfigError(f"jit_compile = True: XLA cannot compile the train step: {e}: set "
                          "jit_compile = False to run it without XLA") from e
    module = _MODULE.search(hlo)
    instructions = len(_INSTRUCTION.findall(hlo))
    if module is None or instructions == 0:
        raise ConfigError("jit_compile = True: XLA returned no HLO module for the train step "
                          f"(its text begins {hlo[:120]!r}): the step did not compile")
    return {"compiler": "XLA", "jit_compile": True, "hlo_module": module.group(1),
            "hlo_instructions": instructions}


def tpu_record() -> dict[str, Any]:
    return {"compiler": "XLA", "jit_compile": True,
            "hlo_module": "compiled by TPUStrategy (TPUs run XLA programs only)"}


def plain_record() -> dict[str, Any]:
    return {"compiler": "none (TensorFlow graph executor)", "jit_compile": False}
