"""Two JAX processes, one in each of two simulated hosts' network namespaces, join through
jax.distributed and sum over gloo: the part of resnet50-jax x2x1 that the hosts' network
decides. JAX's own gloo setup binds the address the hostname resolves to (127.0.0.1 for every
simulated host), so without chipperf_runtime.device.jax's choice of the address towards the
coordinator rank 1 connects to itself ("Connection refused, remote=[127.0.0.1]:PORT").

The whole case through `chipperf run` on two simulated hosts is not in CI: 160 s for the run,
after building the jax image (348 s) and loading it on each host (45 s); docs/validation.md.
Here the test's own python (jax[cpu] is in the test extra) runs in the namespaces: no image.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
PORT = 29537   # beside test_cases_e2e's 29527, which runs on the same hosts' namespaces

# One process: join, then sum one number per process over the mesh of both processes' devices.
JOIN_AND_SUM = """
import json, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec
from chipperf_runtime.device.jax import Coordinator, open_jax_device

address, rank = sys.argv[1], int(sys.argv[2])
device = open_jax_device(coordinator=Coordinator(address, 2, rank))
mesh = Mesh(np.array(jax.devices()), ("d",))
mine = np.full((1,), rank + 1.0, np.float32)
both = jax.make_array_from_process_local_data(NamedSharding(mesh, PartitionSpec("d")), mine)
print(json.dumps({"rank": rank, "processes": jax.process_count(),
                  "sum": float(jax.jit(jnp.sum)(both))}))
"""


def test_two_jax_processes_on_two_hosts_sum_over_gloo(sim_cluster) -> None:
    h1, h2 = sim_cluster.hosts[:2]
    env = {**os.environ, "PYTHONPATH": str(REPO), "CHIPPERF_VENDOR": "cpu",
           "CHIPPERF_DEVICE": "cpu", "OMP_NUM_THREADS": "1"}
    procs = [subprocess.Popen(["ip", "netns", "exec", f"chipperf-{host.name}", sys.executable,
                               "-c", JOIN_AND_SUM, f"{h1.address}:{PORT}", str(rank)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rank, host in enumerate((h1, h2))]
    try:
        # rank 1 first: where gloo cannot connect, rank 1 fails and rank 0 waits in a barrier
        rank1 = procs[1].communicate(timeout=120)
        assert procs[1].returncode == 0, rank1[1][-3000:]
        rank0 = procs[0].communicate(timeout=60)
        assert procs[0].returncode == 0, rank0[1][-3000:]
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
    results = [json.loads(out.strip().splitlines()[-1]) for out, _ in (rank0, rank1)]
    assert results == [{"rank": r, "processes": 2, "sum": 3.0} for r in (0, 1)]
