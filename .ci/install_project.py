"""Install the project with its test extra into the venv that runs this script, fast.

`pip install -e '.[test]'` into a new venv (CI's clean clone) takes 176-223 s on the 2-core CI
machine: ~170 distributions, torch, tensorflow and paddle among them, unpacked one after
another. uv (PyPI's `uv`) resolves and unpacks the same set in parallel (66 s there, cold
cache, beside a loaded machine; DEVELOPERS.md section 5). uv does not read pip's configuration,
so this script reads it (`pip config list`: the machine's mirror, find-links folders, CA bundle,
constraints) and passes each setting on; pip's choice among indexes (the best version on any of
them) is kept with `--index-strategy unsafe-best-match`. Where uv cannot be installed, or fails,
pip installs as before: slower, never different.

    .venv/bin/python .ci/install_project.py [EXTRA_SPEC]      (default: -e .[test])
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time

# pip's setting -> uv's flag (each value of a space-separated list its own flag)
FLAGS = {"index-url": "--index-url", "extra-index-url": "--extra-index-url",
         "find-links": "--find-links", "constraint": "--constraint",
         "trusted-host": "--allow-insecure-host"}
# pip's setting -> the environment variable uv reads for it
ENVIRONMENT = {"cert": "SSL_CERT_FILE", "default-timeout": "UV_HTTP_TIMEOUT",
               "proxy": "HTTPS_PROXY"}
IGNORED = {"disable-pip-version-check", "no-cache-dir", "progress-bar", "root-user-action",
           "break-system-packages"}


def pip_settings() -> dict[str, str]:
    """pip's effective settings: `pip config list` prints them file by file in the order pip
    loads them (global, user, site, then PIP_* variables), so a later one wins."""
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], check=True,
                            capture_output=True, text=True).stdout
    settings: dict[str, str] = {}
    for line in listed.splitlines():
        key, sep, value = line.partition("=")
        if sep and "." in key:
            settings[key.split(".", 1)[1]] = shlex.split(value)[0] if value else ""
    return settings


def uv_command(settings: dict[str, str], spec: list[str]) -> tuple[list[str], dict[str, str]]:
    """uv's command line and environment for pip's settings; a setting uv has no counterpart
    for stops the translation (pip then installs) rather than being dropped."""
    argv = [sys.executable, "-m", "uv", "pip", "install", "--python", sys.executable,
            "--index-strategy", "unsafe-best-match"]
    env = dict(os.environ)
    for key, value in settings.items():
        if key in FLAGS:
            for item in value.split():
                argv += [FLAGS[key], item]
        elif key in ENVIRONMENT:
            env[ENVIRONMENT[key]] = value
        elif key not in IGNORED:
            raise ValueError(f"pip setting {key!r} = {value!r} has no uv counterpart here")
    return argv + spec, env


def main(spec: list[str]) -> int:
    started = time.monotonic()
    pip = [sys.executable, "-m", "pip", "install", *spec]
    try:
        argv, env = uv_command(pip_settings(), spec)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "uv"], check=True)
    except (ValueError, subprocess.CalledProcessError) as exc:
        print(f"install_project: uv not used ({exc}); pip installs", flush=True)
        return subprocess.run(pip).returncode
    print("install_project:", shlex.join(argv[2:]), flush=True)
    if subprocess.run(argv, env=env).returncode != 0:
        print("install_project: uv failed (above); pip installs", flush=True)
        return subprocess.run(pip).returncode
    print(f"install_project: installed by uv in {time.monotonic() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["-e", ".[test]"]))
