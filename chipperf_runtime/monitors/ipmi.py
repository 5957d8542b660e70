"""Node (wall) power from the BMC through ``ipmitool``: the one sensor read by a process.

Setup asks, in order, ``ipmitool dcmi power reading`` (parsed from its
"Instantaneous power reading: 220 Watts" line), then ``ipmitool sdr list`` and
``ipmitool sensor`` (table lines in Watts: a node-total sensor such as "Pwr
Consumption", else the sum of the PSU input sensors). The first form that gives a
reading is used for the whole run; none: the source is unavailable with every reason.

The tool runs without blocking the loop: a tick starts it and a later tick collects
its answer, stamped with the time it was asked. A BMC slower than the interval
therefore yields fewer samples (visible as gaps), never a stalled CPU sampler.
The tool is ``ipmitool`` on PATH, or the path in ``CHIPPERF_IPMITOOL`` or given.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from typing import IO, Any, Callable

from chipperf_runtime.monitors.records import epoch_ms
from chipperf_runtime.monitors.source import SampleError, SamplerUnavailable

TOOL_ENV = "CHIPPERF_IPMITOOL"
Parser = Callable[[str], "tuple[dict[str, Any] | None, list[str]]"]

_NUMBER = r"(-?\d+(?:\.\d+)?)"
_DCMI_FIELDS = {
    "instantaneous power reading": ("power_w", _NUMBER + r"\s*watts"),
    "minimum during sampling period": ("min_w", _NUMBER + r"\s*watts"),
    "maximum during sampling period": ("max_w", _NUMBER + r"\s*watts"),
    "average power reading over sample period": ("avg_w", _NUMBER + r"\s*watts"),
    "sampling period": ("sampling_period_s", r"(\d+)\s*seconds"),
}
_NODE_SENSOR = re.compile(
    r"(pwr|power)[ _]?(consumption|meter)|total[ _]?power|sys(tem)?[ _]?power|node[ _]?power"
    r"|^power$", re.IGNORECASE)
_PSU_INPUT = re.compile(r"^(psu?|power ?supply)[ _]?\d+.*\b(in|input)\b", re.IGNORECASE)


def parse_dcmi(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """Pure: ``ipmitool dcmi power reading`` output -> (reading, problems)."""
    reading: dict[str, Any] = {}
    state = None
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep:
            continue
        if key == "power reading state is":
            state = value.strip().lower()
        field = _DCMI_FIELDS.get(key)
        match = re.match(field[1], value.strip(), re.IGNORECASE) if field else None
        if field and match:
            reading[field[0]] = float(match.group(1))
    if state is not None and state != "activated":
        return None, [f"BMC power measurement is {state!r}, not 'activated'"]
    if "power_w" not in reading:
        return None, ["no 'Instantaneous power reading: <N> Watts' line in: "
                      + " / ".join(text.strip().splitlines()[:3])[:200]]
    return reading, []


def parse_sensor_table(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """Pure: ``ipmitool sdr list`` / ``ipmitool sensor`` tables -> (node reading, problems)."""
    sensors = {}
    for line in text.splitlines():
        fields = [f.strip() for f in line.split("|")]
        watts = _watts(fields) if len(fields) >= 2 else None
        if watts is not None:
            sensors[fields[0]] = watts
    if not sensors:
        return None, ["no sensor reading in Watts"]
    node = [name for name in sensors if _NODE_SENSOR.search(name)]
    if node:
        return {"power_w": sensors[node[0]], "sensor": node[0]}, []
    psus = [name for name in sensors if _PSU_INPUT.search(name)]
    if psus:
        return {"power_w": round(sum(sensors[n] for n in psus), 3), "sensor": " + ".join(psus)}, []
    if len(sensors) == 1:
        name = next(iter(sensors))
        return {"power_w": sensors[name], "sensor": name}, []
    return None, [f"{len(sensors)} Watts sensors, none a node total or PSU input: "
                  + ", ".join(sorted(sensors))[:200]]


def _watts(fields: list[str]) -> float | None:
    for i, field in enumerate(fields[1:], 1):
        match = re.fullmatch(_NUMBER + r"\s+watts", field, re.IGNORECASE)
        if match:
            return float(match.group(1))
        if field.lower() == "watts" and i >= 2 and re.fullmatch(_NUMBER, fields[i - 1]):
            return float(fields[i - 1])
    return None


METHODS: tuple[tuple[str, tuple[str, ...], Parser], ...] = (
    ("dcmi", ("dcmi", "power", "reading"), parse_dcmi),
    ("sdr", ("sdr", "list"), parse_sensor_table),
    ("sensor", ("sensor",), parse_sensor_table),
)


class IpmiSource:
    name = "ipmi"
    file = "pwr_monitor.log"

    def __init__(self, tool: str | None = None, timeout_s: float = 15.0):
        self._tool_given = tool or os.environ.get(TOOL_ENV)
        self._timeout_s = timeout_s
        self._argv: list[str] = []
        self._parse: Parser = parse_dcmi
        self._method = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._out: IO[bytes] | None = None
        self._asked_ms = 0
        self._asked_t = 0.0

    def setup(self) -> dict[str, Any]:
        tool = self._tool_given or shutil.which("ipmitool")
        if not tool:
            raise SamplerUnavailable("ipmitool not found on PATH (install it, or set "
                                     f"{TOOL_ENV}); node power needs a BMC")
        reasons = []
        for method, args, parse in METHODS:
            reading, why = self._ask_once([tool, *args], parse)
            if reading is not None:
                self._argv, self._parse, self._method = [tool, *args], parse, method
                return {"tool": tool, "method": method, "argv": self._argv,
                        **({"sensor": reading["sensor"]} if "sensor" in reading else {})}
            reasons.append(f"{' '.join(args)}: {why}")
            if why.startswith("timed out"):
                break  # the BMC does not answer: do not wait for every other form too
        raise SamplerUnavailable("no BMC power reading: " + "; ".join(reasons))

    def sample(self) -> dict[str, Any] | None:
        outcome = self._collect()
        if isinstance(outcome, Exception):
            # Asked again next tick, so a reading never carries a time before this error line.
            raise outcome
        if self._proc is None:
            self._start()
        return outcome

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None
        if self._out is not None:
            self._out.close()
            self._out = None

    def _ask_once(self, argv: list[str], parse: Parser) -> tuple[dict[str, Any] | None, str]:
        try:
            done = subprocess.run(argv, check=False, capture_output=True, text=True,
                                  timeout=self._timeout_s, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {self._timeout_s:g} s"
        except OSError as e:
            return None, str(e)
        if done.returncode != 0:
            return None, f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[:200]}"
        reading, problems = parse(done.stdout)
        return reading, "; ".join(problems)

    def _start(self) -> None:
        self._out = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        self._asked_ms, self._asked_t = epoch_ms(), time.monotonic()
        self._proc = subprocess.Popen(self._argv, stdout=self._out, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL)

    def _collect(self) -> dict[str, Any] | Exception | None:
        """The finished tool's reading, or its failure; None while none is due."""
        if self._proc is None:
            return None
        if self._proc.poll() is None:
            if time.monotonic() - self._asked_t < self._timeout_s:
                return None
            self.close()
            return SampleError(f"{self._argv[0]} gave no answer in {self._timeout_s:g} s")
        rc, out = self._proc.returncode, self._read_output()
        self.close()
        if rc != 0:
            return SampleError(f"{' '.join(self._argv)} exited {rc}: {out.strip()[:200]}")
        reading, problems = self._parse(out)
        if reading is None:
            return SampleError(f"{' '.join(self._argv)}: {'; '.join(problems)}")
        return {"ts_ms": self._asked_ms, "method": self._method, **reading}

    def _read_output(self) -> str:
        assert self._out is not None
        self._out.seek(0)
        return self._out.read().decode("utf-8", errors="replace")
