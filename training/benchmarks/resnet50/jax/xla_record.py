"""What XLA compiled for the train step: the proof that the step runs as one XLA program.

``jax.jit`` traces the step to StableHLO and XLA compiles it for the backend; there is no
op-by-op fallback. ``compile_step`` compiles it ahead of time (before TRAIN_START, so the
first timed step does not compile) and reads the compiled module: its name and the number of
HLO instructions of the optimized module, as the resnet50/tensorflow2 case's XLA record does.
"""

from __future__ import annotations

import re
from typing import Any

import jax

_MODULE = re.compile(r"^HloModule (\S+?),", re.M)
_INSTRUCTION = re.compile(r"^\s+(?:ROOT )?%?\S+ = ", re.M)


def compile_step(jitted: Any, *args: Any) -> tuple[Any, dict[str, Any]]:
    """(the compiled step, its record) for ``jitted`` at the shapes and shardings of ``args``."""
    compiled = jitted.lower(*args).compile()
    return compiled, record(compiled.as_text())


def record(hlo: str) -> dict[str, Any]:
    """{"compiler": "XLA", "jit_compile": True, "backend", "device_kind", "devices",
    "hlo_module", "hlo_instructions"} from the compiled module's text."""
    module = _MODULE.search(hlo)
    instructions = len(_INSTRUCTION.findall(hlo))
    if module is None or instructions == 0:
        raise RuntimeError("XLA returned no HLO module for the train step (its text begins "
                           f"{hlo[:120]!r}): the step did not compile")
    devices = jax.devices()
    return {"compiler": "XLA", "jit_compile": True, "backend": jax.default_backend(),
            "device_kind": str(devices[0].device_kind), "devices": len(devices),
            "processes": jax.process_count(), "hlo_module": module.group(1),
            "hlo_instructions": instructions}
