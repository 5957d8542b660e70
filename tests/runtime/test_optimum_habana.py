"""The intel_gaudi path of the transformers cases (hftext.optimum_habana): without
optimum-habana in the image, or with lazy mode off, the case stops with one message saying
what is wrong and how to fix it (this machine has neither a Gaudi nor optimum-habana)."""

from __future__ import annotations

import importlib.util

import pytest

from chipperf_runtime.training.driver.errors import DeviceUnavailable
from chipperf_runtime.training.hftext.optimum_habana import IMAGE, gaudi_path


@pytest.mark.skipif(importlib.util.find_spec("optimum") is not None
                    and importlib.util.find_spec("optimum.habana") is not None,
                    reason="optimum-habana is installed here")
def test_optimum_habana_absent_from_the_image_is_one_clear_message(monkeypatch) -> None:
    monkeypatch.delenv("PT_HPU_LAZY_MODE", raising=False)
    with pytest.raises(DeviceUnavailable) as caught:
        gaudi_path()
    message = str(caught.value)
    assert message.startswith("intel_gaudi: optimum-habana is not installed in this image")
    assert "framework pytorch_optimum_habana" in message and IMAGE in message


def test_lazy_mode_off_is_refused_naming_the_variable(monkeypatch) -> None:
    monkeypatch.setenv("PT_HPU_LAZY_MODE", "0")
    with pytest.raises(DeviceUnavailable, match="PT_HPU_LAZY_MODE=0: the Optimum Habana path "
                                                "runs in lazy mode"):
        gaudi_path()
