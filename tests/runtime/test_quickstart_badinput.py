"""The first README command on a machine it cannot set up: not root (so no Docker install and
no engine to start), not Debian/Ubuntu, or no network for apt. It stops with one message that
says what to do, and changes nothing (no .venv, no link, no engine started)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FETCH = ("E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  "
         "Temporary failure resolving 'deb.debian.org'")
APT_FAILS = f"""#!/bin/sh
echo "apt-get $*" >> "$CALLS"
echo "W: Some index files failed to download." >&2
echo "{FETCH}" >&2
exit 100
"""


def quickstart(tmp_path: Path, uid: int, apt: str | None) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run a copy of scripts/quickstart.sh with only fake id/apt-get and a few tools on PATH
    (no docker, dockerd, debootstrap or python3)."""
    clone = tmp_path / "clone"
    (clone / "scripts").mkdir(parents=True)
    shutil.copy2(REPO / "scripts" / "quickstart.sh", clone / "scripts" / "quickstart.sh")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for tool in ("dirname", "grep", "tail", "mktemp", "rm", "cat"):
        (bin_ / tool).symlink_to(shutil.which(tool) or f"/usr/bin/{tool}")
    (bin_ / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    if apt is not None:
        (bin_ / "apt-get").write_text(apt)
    for script in bin_.iterdir():
        if not script.is_symlink():
            script.chmod(0o755)
    (tmp_path / "tmp").mkdir()
    env = {"PATH": str(bin_), "CALLS": str(tmp_path / "calls"), "HOME": str(tmp_path),
           "TMPDIR": str(tmp_path / "tmp"), "CHIPPERF_APT_LOG": str(tmp_path / "apt.log")}
    proc = subprocess.run([shutil.which("bash") or "/bin/bash", "scripts/quickstart.sh"],
                          cwd=clone, env=env, capture_output=True, text=True, timeout=60)
    return proc, clone


def files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("uid, apt, says", [
    (1000, APT_FAILS, "quickstart: run as root (it installs Docker and starts its engine): "
                      "sudo scripts/quickstart.sh"),
    (0, None, "quickstart: needs apt-get (Debian or Ubuntu); install Docker, debootstrap and "
              "python3-venv, then run this again"),
    (0, APT_FAILS, "quickstart: could not install docker.io debootstrap python3 python3-venv "
                   f"with apt-get ({FETCH}; no network for apt?; APT_LOG): install them, then "
                   "run this again"),
], ids=["not-root", "no-apt", "apt-offline"])
def test_first_command_stops_with_one_message_and_changes_nothing(
        tmp_path: Path, uid: int, apt: str | None, says: str) -> None:
    proc, clone = quickstart(tmp_path, uid, apt)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [says.replace("APT_LOG", str(tmp_path / "apt.log"))]
    calls = (tmp_path / "calls").read_text().splitlines() if (tmp_path / "calls").exists() else []
    if uid != 0:
        assert calls == [] and proc.stdout == ""
    elif apt is not None:
        assert calls == ["apt-get update -qq"]     # only the failed update ran
        assert proc.stdout == ("installing docker.io debootstrap python3 python3-venv with apt-get "
                               f"(its output: {tmp_path / 'apt.log'})\n")   # dpkg's lines: the log
    assert files(clone) == ["scripts", "scripts/quickstart.sh"]       # no .venv, no data
    assert files(tmp_path / "tmp") == []                              # no stray files
