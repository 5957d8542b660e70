"""Long steps show progress: the base image's debootstrap, a build's long RUN step (pip),
shipping an image to a host (bytes so far), and each round (step, loss, pace so far)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from chipperf.config.model import ImageBuildConfig
from chipperf.containers import images, progress
from chipperf.run import roundwait
from chipperf_runtime.perflog import Event


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_every_is_due_at_most_once_per_interval() -> None:
    clock = Clock()
    every = progress.Every(10, clock)
    seen = []
    for t in (1, 9.9, 10, 10.5, 19.9, 20.1, 40):
        clock.now = t
        seen.append(every.due())
    assert seen == [False, False, True, False, False, True, True]
    assert every.elapsed() == 40


def test_counted_passes_chunks_through_and_reports_bytes() -> None:
    clock, reports = Clock(), []
    every = progress.Every(1, clock)

    def chunks():
        for _ in range(3):
            clock.now += 0.6
            yield b"x" * 1000

    out = list(progress.counted(chunks(), lambda n, done: reports.append((n, done)), every))
    assert out == [b"x" * 1000] * 3
    assert reports == [(2000, False), (3000, True)]
    assert progress.human_bytes(3 * 2**30) == "3.0 GiB" and progress.human_bytes(5) == "5 B"


def test_debootstrap_logs_each_stage_and_returns_its_tail(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    script = tmp_path / "debootstrap"
    script.write_text("#!/bin/sh\nfor p in libc6 bash dash; do echo \"I: Retrieving $p\"; "
                      "echo \"I: Validating $p\"; done\n"
                      "echo 'I: Extracting libc6'\necho 'E: no space left' >&2\nexit 3\n")
    script.chmod(0o755)
    with caplog.at_level(logging.INFO, logger="chipperf"):
        code, output = images.debootstrap([str(script)], every_s=3600)
    assert code == 3 and output.endswith("E: no space left\n")
    lines = [r.getMessage() for r in caplog.records]
    assert [line.split(": ", 1)[1] for line in lines] == [
        "I: Retrieving libc6", "I: Validating libc6", "I: Extracting libc6", "E: no space left"]
    assert lines[0].startswith("  debootstrap (0 s, 1 lines)")


class Api:
    def __init__(self, stream: list[dict[str, str]] | None = None, refuse: str = "") -> None:
        self.stream = stream or []
        self.loaded = 0
        self.refuse = refuse

    def build(self, **_: Any) -> list[dict[str, str]]:
        return self.stream

    def get_image(self, tag: str) -> Any:
        yield from (b"y" * 4096 for _ in range(5))

    def load_image(self, data: Any, quiet: bool = False) -> Any:
        """As the engine answers: the image is in place only once the answer is read."""
        sent = sum(len(chunk) for chunk in data)
        if self.refuse:
            yield {"errorDetail": {"message": self.refuse}, "error": self.refuse}
            return
        yield {"stream": "Loaded image: img:1\n"}
        self.loaded = sent


class Engine:
    """A Docker engine with one image of 20 KiB (``has``), or none until one is loaded."""

    def __init__(self, has: bool, api: Api | None = None) -> None:
        self.has = has
        self.api = api or Api()
        self.images = self

    def get(self, tag: str) -> Any:
        import docker.errors

        if not (self.has or self.api.loaded):
            raise docker.errors.ImageNotFound(tag)
        return type("Image", (), {"attrs": {"Size": 20480}})()

    def list(self, **_: Any) -> list[Any]:
        return []                # no image of the same build inputs under another name


def test_shipping_logs_the_bytes_sent_to_each_host(caplog: pytest.LogCaptureFixture) -> None:
    target = Engine(has=False)
    with caplog.at_level(logging.INFO, logger="chipperf"):
        assert images.ship_image(Engine(has=True), target, "img:1", "10.0.0.2")
    assert target.api.loaded == 5 * 4096
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "[10.0.0.2] loading image img:1 (about 20.0 KiB)"
    assert lines[-1].startswith("[10.0.0.2] sent image img:1: 20.0 KiB of about 20.0 KiB in ")


def test_shipping_reads_the_engine_s_answer_and_names_its_error() -> None:
    target = Engine(has=False, api=Api(refuse="write /var/lib/docker/tmp/x: no space left on device"))
    with pytest.raises(images.ImageError, match=r"^10.0.0.2: loading image img:1 failed, the "
                       r"engine said: write /var/lib/docker/tmp/x: no space left on device: "
                       r"check free disk space"):
        images.ship_image(Engine(has=True), target, "img:1", "10.0.0.2")


def test_a_long_build_step_shows_its_latest_line(monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(images, "Every", lambda: progress.Every(0.0))   # every line is due
    stream = [{"stream": "Step 5/7 : RUN pip3 install -r req.txt\n"},
              {"stream": "Collecting torch==2.13\n"}, {"stream": "\n"},
              {"stream": "Successfully installed torch-2.13\n"}]
    inputs = images.BuildInputs(context=Path("."), build_args={}, wheel_files=(),
                                ca_bundle=None)
    with caplog.at_level(logging.INFO, logger="chipperf"):
        images._build(Engine(True, Api(stream)), None, "img:1", inputs, ImageBuildConfig())
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "  Step 5/7 : RUN pip3 install -r req.txt"
    assert [line.split(") ", 1)[1] for line in lines[1:]] == [
        "Collecting torch==2.13", "Successfully installed torch-2.13"]


def test_round_progress_puts_step_loss_and_pace_first() -> None:
    event = Event("STEP_END", {"lr": 0.1, "epoch": 2, "throughput_so_far": 45.25, "loss": 1.5,
                               "step": 40}, None, 0)
    assert roundwait._event_text(event) == (
        "last event STEP_END step=40 epoch=2 loss=1.5 throughput_so_far=45.25 lr=0.1")
    assert roundwait._event_text(None) == "no PerfLog event yet"


def test_round_progress_outside_training_names_the_timed_window() -> None:
    """The PerfLog protocol's TRAIN_END is the timed window's end in every suite; an
    inference or base/ progress line says so, in no training words."""
    event = Event("TRAIN_END", {"time_s": 7.636, "items": 16}, None, 0)
    assert roundwait._event_text(event, "inference") == "timed window ended window_s=7.636 items=16"
    assert roundwait._event_text(Event("TRAIN_START", {}, None, 0), "base") == "timed window started"
    assert roundwait._event_text(event) == "last event TRAIN_END time_s=7.636 items=16"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
