"""Out of device memory is a size problem, whichever allocator says so: torch's
OutOfMemoryError, or the RuntimeError a vendor plug-in raises (torch_npu and torch_mlu word
theirs "NPU out of memory" / "MLU out of memory"). Not an unsupported dtype, not a crash."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from chipperf.suites.catalogue import default_suite_dir
from chipperf_runtime.bench.case import BenchError, is_out_of_memory


@pytest.mark.parametrize("exc, oom", [
    (torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB"), True),
    (RuntimeError("NPU out of memory. Tried to allocate 1.00 GiB"), True),
    (RuntimeError("MLU out of memory."), True),
    (RuntimeError("\"addmm_impl_cpu_\" not implemented for 'Half'"), False),
    (ValueError("out of memory"), False),
])
def test_out_of_memory_is_recognised(exc, oom) -> None:
    assert is_out_of_memory(exc) is oom


def test_capacity_halves_its_block_on_a_plug_in_s_out_of_memory(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(default_suite_dir("base") / "benchmarks"))
    from chipperf_runtime.base import memory

    budget = [5 << 20]                       # a device with 5 MiB free

    def empty(n, dtype, device):  # noqa: ANN001, ANN202 - torch.empty as the test device has it
        if n > budget[0]:
            raise RuntimeError(f"NPU out of memory. Tried to allocate {n} bytes")
        budget[0] -= n
        return torch.zeros(n, dtype=dtype)

    monkeypatch.setattr(memory.torch, "empty", empty)
    held, method = memory._fill(SimpleNamespace(device="npu:0"), 4)
    assert held == 5 << 20 and method["first_block_mib"] == 4


def test_allocate_turns_it_into_one_clear_message(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(default_suite_dir("base") / "benchmarks"))
    from chipperf_runtime.base.device import allocate

    case = SimpleNamespace(name="computation-FP32")

    def make():  # noqa: ANN202
        raise RuntimeError("NPU out of memory. Tried to allocate 8.00 GiB")

    with pytest.raises(BenchError, match="computation-FP32: a GEMM needs 8.00 GiB and does not "
                                         "fit in device memory .*lower the size"):
        allocate(case, 8 << 30, "a GEMM", make)
    with pytest.raises(RuntimeError, match="not implemented"):
        allocate(case, 1, "x", lambda: (_ for _ in ()).throw(RuntimeError("not implemented")))
