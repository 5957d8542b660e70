"""Run by the LLM layout tests as one process or as N gloo ranks: a few optimizer steps of an
LLM case's tiny preset (llmtrain's own model building, parallelism and loop) on generated
tokens, then the eval loss; rank 0 writes the step losses and the eval loss.

    llm_layout_steps.py [--ranks N] CASE OUT_JSON [name=value ...]
        (config overrides, e.g. pipeline_parallel=2, or compile=True compile_backend='"aot_eager"')

With ``--ranks N`` the process imports torch, transformers and llmtrain once and forks the N
ranks from itself (RANK, WORLD_SIZE, MASTER_ADDR/PORT set as torch.distributed.run sets them;
gloo is initialised in each rank after the fork). The imports are ~4.8 s of CPU per process
(`python -X importtime`), most of a tiny layout's cost: forked, a 4-rank layout pays them once
instead of four times. What is tested is the layouts' arithmetic; the product's launcher
(torchrun on each node) is the cases' two-rank tests'. A rank that fails stops the others (as
torch.distributed.run does) and the exit status is the first failing rank's.

fp32, dropout-free, AdamW; every layout reads the same global batches (each data-parallel rank
its consecutive share, split into the same micro-batches) and starts from the same weights
(llmtrain.model's seeded initialisation), so any layout's losses are one process's up to
floating-point summation order. The step losses written are the mean over the data-parallel
ranks (each logs its own share's).
"""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(Path(__file__).parent)]

from casemodules import load_case_module  # noqa: E402

from chipperf_runtime.training.driver.config import Config  # noqa: E402
from chipperf_runtime.training.driver.main import run_case  # noqa: E402

DEFAULTS = {"model_size": "tiny", "seq_len": 32, "dtype": "fp32", "seed": 1234,
            "activation_checkpointing": False, "reshard_after_forward": True,
            "global_batch_size": 8, "micro_batch_size": 2, "max_steps": 4, "eval_every_steps": 4,
            "eval_samples": 8, "learning_rate": 3e-3, "min_lr_ratio": 0.1, "weight_decay": 0.1,
            "adam_beta1": 0.9, "adam_beta2": 0.95, "adam_eps": 1e-8, "warmup_steps": 1,
            "grad_clip_norm": 1.0, "tensor_parallel": 1, "router_aux_loss_coef": 0.02,
            "target_eval_loss": {"tiny": 0.0}}
STEPS = 3


def token_stream(n: int, vocab: int) -> "object":
    """A learnable stream: a repeating walk over the ids with some noise."""
    import numpy as np

    rng = np.random.default_rng(0)
    walk = (np.arange(n) * 7 + rng.integers(0, 3, n)) % vocab
    return walk.astype(np.int64)


def layer_tokens(layers: list) -> list[int]:
    """Filled with the sequence length of the first decoder layer's output at its first call:
    the tokens of a sequence this rank's residual stream holds (seq / cp, / tp with sequence
    parallelism)."""
    seen: list[int] = []
    if layers:
        layers[0].register_forward_hook(lambda _m, _i, out: seen.append(
            (out[0] if isinstance(out, tuple) else out).shape[1]))
    return seen


def main(case: str, out: Path, overrides: list[str]) -> None:
    import torch
    import torch.distributed as tdist

    from chipperf_runtime.training.driver.torchknobs import CompileSetting
    from chipperf_runtime.training.llmtrain import case as llm
    from chipperf_runtime.training.textlm.shards import Windows
    from chipperf_runtime.training.textlm.tokens import TokenDataset

    torch.set_num_threads(1)
    world, rank = int(os.environ.get("WORLD_SIZE", "1")), int(os.environ.get("RANK", "0"))
    if world > 1:
        tdist.init_process_group("gloo", rank=rank, world_size=world)
    spec = load_case_module(f"{case}/pytorch", "run_pretraining", f"layout_{case}").SPEC
    values = {**DEFAULTS, **{k: ast.literal_eval(v) for k, v in
                             (o.split("=", 1) for o in overrides)}}
    cfg = Config(values, {})
    dist = SimpleNamespace(world_size=world, nproc_per_node=world)
    arch, layout = llm.model_config(cfg, spec, dist)  # type: ignore[arg-type]
    vocab = arch["vocab_size"]
    data = TokenDataset(Windows.of([token_stream(40 * 33, vocab)], 32),
                        Windows.of([token_stream(12 * 33, vocab)[::-1].copy()], 32), vocab)
    device = SimpleNamespace(device=torch.device("cpu"))
    setting = CompileSetting(bool(cfg.get("compile", False)), str(cfg.get("compile_mode", "default")),
                             str(cfg.get("compile_backend", "inductor")))
    model, mesh, pipeline = llm.build_model(cfg, spec, arch, layout, device,  # type: ignore[arg-type]
                                            setting)
    loop = llm.build_loop(cfg, spec, model, mesh, layout, data, device.device, pipeline)
    seen = layer_tokens(llm.decoder_layers(model if pipeline is None else pipeline.modules[0]))
    losses = []
    for tokens in loop.batches(1):
        loss, stepped = loop.step(tokens)
        if stepped:
            losses.append(float(loss))
        if len(losses) == STEPS:
            break
    eval_loss = loop.evaluate()
    if world > 1:   # every rank of a data-parallel index logged the same (its share's) losses
        every: list = [None] * world
        tdist.all_gather_object(every, losses)
        losses = [sum(step) / world for step in zip(*every)]
    result = {"losses": losses, "eval_loss": eval_loss, "layout": layout.describe(),
              "layer_tokens": seen[0] if seen else None}
    if rank == 0:
        out.write_text(json.dumps(result))
    if world > 1:
        tdist.destroy_process_group()


def fork_ranks(ranks: int, argv: list[str]) -> int:
    """Run ``main`` on ``ranks`` forked ranks; the exit status of the first that failed, or 0."""
    import socket
    import time

    import chipperf_runtime.training.llmtrain.case  # noqa: F401  (the imports the ranks share)

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pids = []
    for rank in range(ranks):
        pid = os.fork()
        if pid == 0:
            os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(ranks),
                              LOCAL_WORLD_SIZE=str(ranks), MASTER_ADDR="127.0.0.1",
                              MASTER_PORT=str(port))
            run_rank(argv)
        pids.append(pid)
    status = 0
    while pids:
        pid, wait = os.wait()
        pids.remove(pid)
        code = os.waitstatus_to_exitcode(wait)
        if code != 0 and status == 0:
            status = code if code > 0 else 128 - code
            print(f"llm_layout_steps: a rank (pid {pid}) ended with {code}: stopping the others",
                  file=sys.stderr, flush=True)
            time.sleep(0.5)         # its message first
            for other in pids:
                os.kill(other, 15)
    return status


def run_rank(argv: list[str]) -> None:
    # Ended as the cases end (run_case's quick exit after destroy_process_group): the device
    # mesh and FSDP still hold the gloo groups, whose worker threads, freed during interpreter
    # teardown, may take the GIL while Python finalizes and abort the rank ("terminate called
    # without an active exception", seen once in CI on mixtral's EP x DP layout).
    run_case(lambda: main(argv[0], Path(argv[1]), argv[2:]), quick_exit=True)


if __name__ == "__main__":
    from chipperf_runtime.models.tvision import prepare_torchvision

    prepare_torchvision()
    if sys.argv[1] == "--ranks":
        sys.exit(fork_ranks(int(sys.argv[2]), sys.argv[3:]))
    run_rank(sys.argv[1:])
