"""Value checks of the config loader that need more than a type: bounds on counts and
seconds, docker's size and image-reference syntax, URLs, files on the master, and the
"did you mean" hint for a misspelt name.

Each check is a function ``value -> value`` that raises ``ValueError`` naming what is wrong
(``chipperf.config.fields.Fields.get`` turns it into ``where: what is wrong: how to fix``).
Every check here runs while the configs load, before any host is touched.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from typing import Any, Iterable
from urllib.parse import urlparse

# The most rounds one case key may ask for: a plan holds every round of every case, and
# FlagPerf's own configs repeat a case 1 to 5 times.
MAX_REPEAT = 1000
# The longest wait any *_TIMEOUT or interval may set: 30 days, in seconds. Longer is no
# benchmark round, and a float past it (1e999 is inf) would overflow the clock's arithmetic.
MAX_SECONDS = 30 * 24 * 3600.0
MAX_NNODES = 4096
MAX_NPROC = 1024

SECONDS_FIX = f"use seconds > 0 and at most {MAX_SECONDS:.0f} (30 days)"


def seconds(value: Any) -> float:
    """A duration in seconds: > 0, finite, at most MAX_SECONDS."""
    if isinstance(value, bool):
        raise ValueError("a bool, expected a number of seconds")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"a number too large to be seconds (over {MAX_SECONDS:.0f})") from None
    if math.isnan(number):
        raise ValueError("not a number (NaN)")
    if number <= 0:
        raise ValueError("must be > 0")
    if number > MAX_SECONDS:
        raise ValueError(f"over the maximum of {MAX_SECONDS:.0f} s (30 days)")
    return number


def count_problem(label: str, value: int) -> str | None:
    """Why a case key's nnodes, nproc or repeat is out of bounds (None: it is not)."""
    maximum = {"repeat": MAX_REPEAT, "nnodes": MAX_NNODES, "nproc": MAX_NPROC}[label]
    if value > maximum:
        return f"{label} {value} is over the maximum of {maximum} (lower it)"
    return None


# docker's --shm-size: a whole or decimal number with an optional unit b, k, m or g
# (docker-py's parse_bytes reads these; 'mb', 'gb' forms too).
_SIZE = re.compile(r"^(\d+)(\.\d+)?([bkmg]b?)?$")


def docker_size(value: Any) -> str:
    """SHM_SIZE in docker's syntax (32g, 512m, 1073741824), lower-cased; > 0."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"a {type(value).__name__}, expected a size such as '16g'")
    text = str(value).strip().lower()
    match = _SIZE.match(text)
    if not match:
        raise ValueError("not a docker size (a number with an optional unit b, k, m or g)")
    if float(match.group(1) + (match.group(2) or "")) <= 0:
        raise ValueError("must be more than 0")
    return text


# An image reference as docker parses it: [registry[:port]/]path[:tag][@digest]
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_IMAGE = re.compile(rf"^(?:[A-Za-z0-9.-]+(?::[0-9]+)?/)?{_COMPONENT}(?:/{_COMPONENT})*"
                    r"(?::[\w][\w.-]{0,127})?(?:@sha256:[0-9a-f]{64})?$")


def image_reference(value: Any) -> str:
    """BASE_IMAGE: a docker image reference (registry.example.com/team/pytorch:24.03)."""
    if not isinstance(value, str):
        raise ValueError(f"a {type(value).__name__}, expected one image name")
    if value and not _IMAGE.match(value):
        raise ValueError("not a docker image reference ([registry[:port]/]name[:tag], name "
                         "in lower case, no spaces)")
    return value


def index_url(value: Any) -> str:
    """PIP_INDEX_URL: an http(s) URL with a host, or a file:// URL."""
    if not isinstance(value, str):
        raise ValueError(f"a {type(value).__name__}, expected one URL")
    if not value:
        return value   # FlagPerf's PIP_SOURCE = "": not set
    parsed = urlparse(value)
    if parsed.scheme == "file" or (parsed.scheme in ("http", "https") and parsed.netloc
                                   and not re.search(r"\s", value)):
        return value
    raise ValueError("not an http://, https:// or file:// URL")


def key_file(value: Any) -> str:
    """SSH_KEY: a readable file on the master (the private key SSH offers); '' is not set."""
    if value == "":
        return value
    path = _one_path(value)
    if not os.path.isfile(os.path.expanduser(path)):
        raise ValueError("no such file on this master")
    if not os.access(os.path.expanduser(path), os.R_OK):
        raise ValueError("not readable by this user")
    return path


def known_hosts_file(value: Any) -> str:
    """KNOWN_HOSTS as written: a path that is not a folder (whether it must exist depends on
    the hosts and HOST_KEY_POLICY: ``known_hosts_problem``)."""
    path = _one_path(value)
    if os.path.isdir(os.path.expanduser(path)):
        raise ValueError("a folder, not a file")
    return path


# Hosts chipperf reaches without SSH (chipperf.remote.host.LOCAL_NAMES: the same names)
_LOCAL = ("127.0.0.1", "localhost", "::1")


def known_hosts_problem(path: str, hosts: Iterable[str], policy: str) -> str | None:
    """Why KNOWN_HOSTS cannot verify the hosts SSH will reach (None: it can, or needs not)."""
    remote = [h for h in hosts if h not in _LOCAL]
    if policy != "verify" or not remote or os.path.isfile(os.path.expanduser(path)):
        return None
    return (f"{path!r}: no such file on this master, so no host key can be verified: add the "
            f"hosts' keys after checking their fingerprints (`ssh-keyscan -p PORT {remote[0]} "
            f">> FILE`), or set HOST_KEY_POLICY = 'accept-any' to opt out of verification")


def host_path(value: Any) -> str:
    """WORK_ROOT: an absolute path on the hosts that docker can mount (no ':', which separates
    a volume's parts, and no line break)."""
    path = _one_path(value)
    if not path.startswith("/"):
        raise ValueError("not an absolute path")
    if ":" in path or "\n" in path:
        raise ValueError("holds ':' or a line break, which a docker volume cannot take")
    return path


def non_empty(value: Any) -> str:
    """One string that is not empty."""
    return _one_path(value)


def _one_path(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"a {type(value).__name__}, expected one string")
    if not value.strip():
        raise ValueError("empty")
    return value


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` closest to ``name`` (letter case aside), None when none is close."""
    options = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(name.lower(), list(options), n=1, cutoff=0.75)
    return options[close[0]] if close else None


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """' (did you mean X?)' for the closest of ``choices`` to ``name``, '' when none is close."""
    close = closest(name, choices)
    return f" (did you mean {close}?)" if close else ""
