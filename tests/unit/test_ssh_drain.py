"""How a command's output is read off its SSH channel (chipperf.remote.ssh._drain): the
command's end is its exit status and its EOF, as sshd may send the status before the last
of the output. A scripted stand-in for paramiko's Channel plays the packets' order."""

from __future__ import annotations

import threading
import time

import pytest

from chipperf.remote import ssh as remote


class ScriptedChannel:
    """Delivers ``events`` ("status", ("out", bytes), ("err", bytes), "eof") one per poll of
    the reader, in order, as paramiko's transport thread would feed them."""

    def __init__(self, events: list, code: int = 0):
        self.events = list(events)
        self.code = code
        self.out, self.err = bytearray(), bytearray()
        self.status = False
        self.eof_received = False
        self.status_event = threading.Event()
        self.closed = False

    def _feed(self) -> None:
        if not self.events:
            return
        event = self.events.pop(0)
        if event == "status":
            self.status = True
            self.status_event.set()
        elif event == "eof":
            self.eof_received = True
        else:
            (self.out if event[0] == "out" else self.err).extend(event[1])

    def settimeout(self, _: float) -> None:
        pass

    def recv_ready(self) -> bool:
        return bool(self.out)

    def recv_stderr_ready(self) -> bool:
        return bool(self.err)

    def recv(self, n: int) -> bytes:
        data, self.out[:] = bytes(self.out[:n]), self.out[n:]
        return data

    def recv_stderr(self, n: int) -> bytes:
        data, self.err[:] = bytes(self.err[:n]), self.err[n:]
        return data

    def exit_status_ready(self) -> bool:
        self._feed()   # one event arrives between two looks of the reader
        return self.status

    def recv_exit_status(self) -> int:
        return self.code

    def close(self) -> None:
        self.closed = True


def test_output_after_the_exit_status_is_still_read() -> None:
    channel = ScriptedChannel(["status", ("out", b"a\n"), ("err", b"warn\n"), ("out", b"b\n"),
                               "eof"])
    assert remote._drain(channel, time.monotonic() + 10) == (0, "a\nb\n", "warn\n")
    assert channel.closed


def test_output_then_status_then_eof_as_usual() -> None:
    channel = ScriptedChannel([("out", b"x" * 70_000), "eof", "status"], code=3)
    code, out, err = remote._drain(channel, time.monotonic() + 10)
    assert (code, len(out), err) == (3, 70_000, "")


def test_a_command_whose_output_stays_open_ends_after_the_grace(monkeypatch) -> None:
    """No EOF (a background child holds the output open): done EOF_GRACE_S after the status."""
    monkeypatch.setattr(remote, "EOF_GRACE_S", 0.2)
    channel = ScriptedChannel([("out", b"started\n"), "status"])
    started = time.monotonic()
    assert remote._drain(channel, started + 10) == (0, "started\n", "")
    assert 0.2 <= time.monotonic() - started < 5


def test_a_command_past_its_deadline_raises() -> None:
    channel = ScriptedChannel([("out", b"slow\n")])
    with pytest.raises(TimeoutError):
        remote._drain(channel, time.monotonic() + 0.2)
    assert channel.closed
