"""Small FlagPerf result directories, written in FlagPerf's own formats (FlagOpen/FlagPerf @
1b5a0303: training/run_benchmarks/run.py and start_<framework>_task.py lay out the tree and
name rank logs by global rank; chipperf_runtime/training/driver/perf_logger.py writes
``[PerfLog] {"event", "value", "metadata": {"file", "lineno", "time_ms", "rank": LOCAL rank}}``;
utils/sys_monitor.py and training/nvidia/nvidia_monitor.py write the text monitor lines;
inference/run.py and run_inference.py write ``<case>/<host>_noderank0/container.out.log``
with loguru's ``... | Finish Info | ... - {dict}``). Values are test inputs, not measurements."""

from __future__ import annotations

import json
import time
from pathlib import Path

START = 1_704_103_200            # epoch seconds of the first sample (rendered in local time)


def stamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime(START + seconds))


def perflog(event: str, seconds: float, local_rank: int, value: object = None) -> str:
    record: dict[str, object] = {"event": event}
    if value is not None:
        record["value"] = value
    record["metadata"] = {"file": "run_pretraining.py", "lineno": 100,
                          "time_ms": int((START + seconds) * 1000), "rank": local_rank}
    return "[PerfLog] " + json.dumps(record)


def monitors(node: Path, seconds: int = 60, gpus: int = 2) -> None:
    samples = range(0, seconds + 1, 5)
    (node / "cpu_monitor.log").write_text("".join(f"{stamp(s)}\t0.125\n" for s in samples))
    (node / "mem_monitor.log").write_text("".join(f"{stamp(s)}\t0.5\n" for s in samples))
    (node / "pwr_monitor.log").write_text(f"{stamp(0)}\t350\n")
    (node / "nvidia_monitor.log").write_text("".join(
        f"{stamp(s)}\n" + "".join(f"3{i}C 300W 4000{i}MiB 81920MiB 95%\n" for i in range(gpus))
        for s in samples))


def rank_log(local_rank: int, finished: bool = True) -> str:
    lines = [perflog("LAUNCH_TRAINING", 0, local_rank, "launch"),
             perflog("SUBMIT_INFO", 0, local_rank, {
                 "vendor": "nvidia", "model": "resnet50", "config_path": "config_A100x2x2.py",
                 "config": {"train_batch_size": 32, "data_dir": "/raid/dataset/ImageNet",
                            "amp": False, "target_acc1": 0.7}}),
             perflog("INIT_START", 1, local_rank), perflog("INIT_END", 5, local_rank),
             perflog("TRAIN_START", 10, local_rank), "Epoch: [0] loss 6.9",
             perflog("STEP_BEGIN", 11, local_rank, {"step": 1}),
             perflog("TRAIN_END", 50, local_rank)]
    if finished:
        lines.append(perflog("FINISHED", 55, local_rank, {
            "e2e_time": 55.0, "training_images_per_second": 1200.0, "converged": True,
            "final_accuracy": 0.71, "raw_train_time": 40.0, "init_time": 4.0,
            "num_trained_samples": 48000}))
    return "\n".join(lines) + "\n"


def training_run(root: Path, case: str = "resnet50:pytorch_1.8:A100:2:2:1") -> Path:
    """One round of a 2-node x 2-process pytorch case: rank<R>.out.log by global rank R,
    metadata.rank the local rank (node 1's rank2.out.log says rank 0)."""
    run = root / "run20240101100000"
    for k, host in enumerate(("10.1.2.2", "10.1.2.3")):
        node = run / case / "round1" / f"{host}_noderank{k}"
        node.mkdir(parents=True)
        monitors(node)
        for local in range(2):
            (node / f"rank{k * 2 + local}.out.log").write_text(rank_log(local))
        (node / "start_pytorch_task.log").write_text("start task\n")
    (run / "flagperf_run.log").write_text("Congrats! See all logs in ...\n")
    return run


FINISH_INFO = {"vendor": "nvidia", "compiler": "tensorrt", "precision": "fp16", "batchsize": 256,
               "flops": 1.2e15, "e2e_time(second)": 512.3, "p_validation_whole(qps)": 1000.0,
               "p_validation_core(qps)": 2000.0, "p_inference_whole(qps)": 1100.0,
               "*p_inference_core(qps)": 2100.0, "val_average_acc": 0.75,
               "infer_average_acc": 0.74}


def inference_run(root: Path, finish: bool = True) -> Path:
    run = root / "run20240102100000"
    node = run / "resnet50:pytorch_1.13" / "127.0.0.1_noderank0"
    node.mkdir(parents=True)
    monitors(node, gpus=1)
    lines = ["2024-01-02 10:00:00.000 | Init Begin | __main__:main:26 - building dataloader",
             "2024-01-02 10:00:09.000 | Vendor Inference End | __main__:main:83 - "]
    if finish:
        lines.append(f"2024-01-02 10:08:32.300 | Finish Info | __main__:<module>:159 - "
                     f"{FINISH_INFO!r}")
    (node / "container.out.log").write_text("\n".join(lines) + "\n")
    (node / "stdout_err.out.log").write_text("\n".join(lines) + "\n")
    (run / "host.out.log").write_text("=== 2.3 Compilation Case Performance ===\n")
    return run


def llm_run(root: Path, sample: Path) -> Path:
    """A deepspeed LLM case: each node's torchrun output in rank0.log.txt, no PerfLog."""
    run = root / "run20240103100000"
    node = run / "llama2_7b:deepspeed:A100:1:8:1" / "round1" / "10.1.2.2_noderank0"
    node.mkdir(parents=True)
    monitors(node, gpus=8)
    (node / "rank0.log.txt").write_text(sample.read_text())
    return run
