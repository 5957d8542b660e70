"""Issue 17 item 5: SIGTERM and SIGHUP stop a run like Ctrl-C, recorded as what they were
(the e2e test_faults.py::test_ctrl_c_or_sigterm_cancels_and_cleans_up checks SIGINT and
SIGTERM on the simulated cluster, with the canceled round in run.json's rounds)."""

from __future__ import annotations

import os
import signal

import pytest

from chipperf.commands.process import sigterm_as_interrupt
from chipperf.errors import Interrupted, interruption


@pytest.fixture
def restored_handlers():
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


@pytest.mark.parametrize("sig, reason", [(signal.SIGTERM, "interrupted (SIGTERM)"),
                                         (signal.SIGHUP, "interrupted (SIGHUP)"),
                                         (signal.SIGINT, "interrupted (Ctrl-C)")])
def test_a_stop_signal_unwinds_as_an_interrupt_naming_it(restored_handlers, sig, reason):
    sigterm_as_interrupt()
    with pytest.raises(KeyboardInterrupt) as caught:
        os.kill(os.getpid(), sig)
    assert interruption(caught.value) == reason
    assert isinstance(caught.value, Interrupted) == (sig != signal.SIGINT)
