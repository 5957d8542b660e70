"""The deepspeed launcher: DeepSpeed's per-node launch module, ranks through rankexec."""

from __future__ import annotations

import base64
import json

import pytest
from launchctx import launch_context

from chipperf.launchers import get_launcher, launcher_names
from chipperf.launchers import pytorch as pytorch_launcher
from chipperf.launchers.base import LaunchContext, rank_exec

deepspeed = get_launcher("deepspeed")


def ctx(nnodes: int = 2, node_rank: int = 1, nproc: int = 8,
        hosts: tuple[str, ...] = ("10.0.0.1", "10.0.0.2")) -> LaunchContext:
    return launch_context("/w/results/n1", "/w/code/benchmarks/llama2_7b/deepspeed/run_pretraining.py",
                          nnodes=nnodes, node_rank=node_rank, nproc=nproc, hosts=hosts,
                          port=29501)


def decode(argv: list[str]) -> dict:
    (flag,) = [a for a in argv if a.startswith("--world_info=")]
    return json.loads(base64.urlsafe_b64decode(flag.split("=", 1)[1]))


def test_registered_as_family_deepspeed() -> None:
    assert "deepspeed" in launcher_names()


def test_command_runs_deepspeeds_node_launcher_with_this_nodes_rank() -> None:
    argv = deepspeed.command(ctx())
    assert argv[:5] == ["python3", "-u", "-m", "chipperf_runtime.launch.quickexit",
                        "deepspeed.launcher.launch"]
    launcher_flags = argv[5:argv.index("--no_local_rank") + 1]
    assert launcher_flags[1:] == ["--node_rank=1", "--master_addr=10.0.0.1",
                                  "--master_port=29501", "--no_python", "--no_local_rank"]


def test_world_info_lists_every_node_in_rank_order_with_local_device_ids() -> None:
    info = decode(deepspeed.command(ctx(nproc=4)))
    assert list(info) == ["10.0.0.1", "10.0.0.2"]
    assert list(info.values()) == [[0, 1, 2, 3], [0, 1, 2, 3]]


def test_world_info_keeps_nodes_that_share_an_address_apart() -> None:
    info = decode(deepspeed.command(ctx(hosts=("127.0.0.1", "127.0.0.1"))))
    assert list(info) == ["127.0.0.1#0", "127.0.0.1#1"]


def test_single_node_world_info() -> None:
    info = decode(deepspeed.command(ctx(nnodes=1, node_rank=0, nproc=2, hosts=("h1",))))
    assert info == {"h1": [0, 1]}


def test_each_rank_goes_through_rankexec_exactly_like_the_pytorch_launcher() -> None:
    c = ctx()
    argv = deepspeed.command(c)
    tail = argv[argv.index("--no_local_rank") + 1:]
    prefix = rank_exec(c)
    assert tail[:len(prefix)] == prefix
    assert tail[len(prefix):] == ["python3", "-u", c.entry, *c.case_args]
    torchrun = pytorch_launcher.command(c)
    assert torchrun[-len(tail):] == tail


def test_no_extra_environment() -> None:
    assert dict(deepspeed.env(ctx())) == {}


@pytest.mark.parametrize("python", ["/usr/bin/python3.11", "python"])
def test_uses_the_contexts_python(python: str) -> None:
    c = LaunchContext(nnodes=1, node_rank=0, nproc_per_node=1, master_addr="h", master_port=1,
                      node_addr="h", hosts=("h",), entry="/e.py", case_args=(),
                      output_dir="/o", python=python)
    argv = deepspeed.command(c)
    assert argv[0] == python and argv[-2:] == ["-u", "/e.py"] and argv[-3] == python


@pytest.mark.parametrize("nnodes, node_rank, hosts_store", [(1, 0, False), (2, 1, False),
                                                            (2, 0, True)])
def test_torchrun_quick_exit_waits_for_the_other_nodes_where_it_hosts_the_store(
        nnodes: int, node_rank: int, hosts_store: bool) -> None:
    hosts = ("10.0.0.1", "10.0.0.2")[:nnodes]
    argv = pytorch_launcher.command(ctx(nnodes=nnodes, node_rank=node_rank, hosts=hosts))
    runner = argv[:argv.index("torch.distributed.run") + 1]
    port = argv[argv.index("--store-port") + 1] if hosts_store else None
    assert runner == ["python3", "-m", "chipperf_runtime.launch.quickexit",
                      *(["--store-port", port] if hosts_store else []), "torch.distributed.run"]
    assert port is None or f"--master_port={port}" in argv
    assert f"--node_rank={node_rank}" in argv and f"--nnodes={nnodes}" in argv
