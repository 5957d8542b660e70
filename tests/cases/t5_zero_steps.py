"""Run by test_t5_3b_pytorch.py as one process or under ``torch.distributed.run
--nproc_per_node=N``: the t5_3b case itself (its entry's ``main``: vendor config, data, model,
gradient checkpointing, DDP or DeepSpeed ZeRO by ``zero_stage``) with its training loop
replaced by STEPS optimizer steps and one evaluation; rank 0 writes what they gave.

    t5_zero_steps.py OUT_JSON --data_dir D --extern_config_dir C --extern_config_file F [--set ...]

Each rank's loss is its own share's mean over the labelled tokens; the generated summaries all
have the same number of tokens, so the mean of the ranks' losses is the global batch's mean:
what one process computes over the whole batch. Written: {"losses": [...], "rouge1": x,
"world_size": n, "zero": {"stage", "optimizer"} or null}.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ENTRY = REPO / "training" / "benchmarks" / "t5_3b" / "pytorch" / "run_pretraining.py"
sys.path[:0] = [str(REPO), str(REPO / "training" / "benchmarks"), str(REPO / "tests" / "runtime")]
STEPS = 3


def steps_only(out: Path) -> Any:
    """A stand-in for ``run_and_finish``: STEPS steps, one evaluation, the JSON."""
    def run(driver: Any, loop: Any, device: Any, *_: Any, **__: Any) -> None:
        import torch.distributed as tdist

        losses = [float(loop.step(batch)[0]) for batch in
                  itertools.islice(loop.batches(1), STEPS)]
        rouge1 = loop.evaluate()
        world = driver.dist.world_size
        if world > 1:
            every: list = [None] * world
            tdist.all_gather_object(every, losses)
            losses = [sum(step) / world for step in zip(*every)]
        engine = loop.engine
        zero = None if engine is None else {"stage": engine.zero_optimization_stage(),
                                            "optimizer": type(engine.optimizer).__name__}
        if driver.dist.rank == 0:
            out.write_text(json.dumps({"losses": losses, "rouge1": rouge1, "world_size": world,
                                       "zero": zero}))
    return run


def main() -> None:
    from casemodules import load_case_module

    from chipperf_runtime.training.driver.main import run_case
    from chipperf_runtime.training.hftext import case

    entry = load_case_module("t5_3b/pytorch", "run_pretraining", "t5_zero_steps_entry")
    case.run_and_finish = steps_only(Path(sys.argv[1]))    # type: ignore[assignment]
    argv = sys.argv[2:]
    run_case(lambda: case.main("t5_3b", ENTRY.parent, entry.TEXT_MODEL, argv), quick_exit=True)


if __name__ == "__main__":
    main()
