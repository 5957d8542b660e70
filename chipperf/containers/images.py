"""Vendor images: tag by a hash of the build inputs, build once, ship to every host's engine.

The build context is the image folder plus ``chipperf-build/`` holding ``wheels/``
(the wheelhouse and find-links directories) and ``ca.crt`` (the CA bundle, or
empty); pip settings pass through as build args, which RUN steps see as
environment.

Base images: the local Debian base (``LOCAL_BASE``, the default of every cpu
Dockerfile) is always built here from Debian with debootstrap and never pulled:
no registry holds it, and a name on a public registry would run whatever someone
published under it. Any other base is one a vendor's Dockerfile or the user named
(``ARG BASE_IMAGE``): that is pulled from the registry its name says when missing.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import re
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from chipperf.config.model import ImageBuildConfig
from chipperf.containers.progress import Every, counted, human_bytes, stage
from chipperf.errors import ImageError

log = logging.getLogger("chipperf")

# ".local" is reserved for local names (RFC 6762): no public registry can serve this name.
LOCAL_BASE = "chipperf.local/debian:bookworm"
SKIP = ("__pycache__", ".pyc")


@dataclass(frozen=True)
class BuildInputs:
    context: Path
    wheel_files: tuple[Path, ...]
    ca_bundle: Path | None
    build_args: Mapping[str, str]

    def digest(self) -> str:
        h = hashlib.sha256()
        for path in _context_files(self.context):
            h.update(str(path.relative_to(self.context)).encode() + b"\0")
            h.update(hashlib.sha256(path.read_bytes()).digest())
        for wheel in self.wheel_files:
            st = wheel.stat()
            h.update(f"wheel {wheel.name} {st.st_size} {int(st.st_mtime)}".encode())
        if self.ca_bundle:
            h.update(hashlib.sha256(self.ca_bundle.read_bytes()).digest())
        h.update(json.dumps(dict(self.build_args), sort_keys=True).encode())
        return h.hexdigest()[:16]


def _context_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and not any(s in p.parts or p.name.endswith(s) for s in SKIP))


def build_inputs(context: Path, cfg: ImageBuildConfig) -> BuildInputs:
    dirs = [Path(d) for d in ((cfg.wheelhouse,) if cfg.wheelhouse else ()) + cfg.pip_find_links
            if not _is_url(d)]
    wheels = tuple(sorted((f for d in dirs if d.is_dir() for f in d.iterdir()
                           if f.suffix in (".whl", ".gz", ".zip")), key=lambda p: p.name))
    urls = [u for u in cfg.pip_find_links if _is_url(u)]
    args = {
        "PIP_INDEX_URL": cfg.pip_index_url or "",
        "PIP_EXTRA_INDEX_URL": " ".join(u for u in cfg.pip_extra_index_urls if _is_url(u)),
        "PIP_FIND_LINKS": " ".join(["/chipperf-build/wheels", *urls]),
        "PIP_CERT": "/chipperf-build/ca.crt" if cfg.ca_bundle else "",
        "HTTP_PROXY": cfg.http_proxy or "", "HTTPS_PROXY": cfg.https_proxy or "",
        "NO_PROXY": cfg.no_proxy or "",
        # The test config's BASE_IMAGE over the Dockerfile's default (the user's registry).
        "BASE_IMAGE": cfg.base_image or "",
    }
    ca = Path(cfg.ca_bundle) if cfg.ca_bundle else None
    return BuildInputs(context, wheels, ca, {k: v for k, v in args.items() if v})


def _is_url(text: str) -> bool:
    return bool(re.match(r"^[a-z][a-z0-9+.-]*://", text)) and not text.startswith("file://")


def image_tag(name: str, inputs: BuildInputs) -> str:
    return f"{name}:{inputs.digest()}"


def redact(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@`` URL in it masked."""
    return re.sub(r"(://[^/\s:@]+:)[^/\s@]+@", r"\1***@", text)


def build_settings(cfg: ImageBuildConfig, from_master: tuple[str, ...] = (),
                   skipped: tuple[str, ...] = ()) -> dict[str, Any]:
    """The settings every image build of a run uses, as run.json records them."""
    return {
        "pip_index_url": cfg.pip_index_url, "pip_extra_index_urls": list(cfg.pip_extra_index_urls),
        "pip_find_links": list(cfg.pip_find_links), "wheelhouse": cfg.wheelhouse,
        "ca_bundle": cfg.ca_bundle,
        **{k: redact(v) if v else v for k, v in (("http_proxy", cfg.http_proxy),
                                                 ("https_proxy", cfg.https_proxy))},
        "no_proxy": cfg.no_proxy, "debian_mirror": cfg.debian_mirror,
        "pip_from_master": cfg.pip_from_master, "from_master": list(from_master),
        "not_used": list(skipped),
    }


def case_build(client: Any, inputs: BuildInputs) -> dict[str, Any]:
    """What one case's image was built from: base images (name, id, origin), build args, wheels."""
    bases = []
    for name in base_images(inputs.context / "Dockerfile", inputs.build_args):
        try:
            image_id = client.images.get(name).id
        except Exception:  # a reused image's base may have been removed since: still record it
            image_id = None
        origin = "debootstrap (local)" if name == LOCAL_BASE else "named by the Dockerfile"
        bases.append({"name": name, "id": image_id, "origin": origin})
    return {"base_images": bases,
            "build_args": {k: redact(v) for k, v in inputs.build_args.items()},
            "wheel_files": [w.name for w in inputs.wheel_files],
            "ca_bundle": str(inputs.ca_bundle) if inputs.ca_bundle else None}


# ---------------------------------------------------------------- building


def ensure_image(client: Any, name: str, inputs: BuildInputs, cfg: ImageBuildConfig) -> str:
    """The image's tag on ``client``'s engine, built only when no image has these inputs."""
    tag = image_tag(name, inputs)
    if _has_image(client, tag) or _tag_same_inputs(client, tag, "master"):
        log.info("image %s is up to date (inputs unchanged)", tag)
        return tag
    for base in base_images(inputs.context / "Dockerfile", inputs.build_args):
        ensure_base(client, base, cfg)
    log.info("building image %s from %s", tag, inputs.context)
    with tempfile.TemporaryFile() as context:
        _write_context(context, inputs)
        context.seek(0)
        _build(client, context, tag, inputs, cfg)
    return tag


# A vendor case's requirements (its config/requirements.txt) as one layer on the framework
# image: only cases that have them get it, so every other image keeps its tag. pip reads
# PIP_BREAK_SYSTEM_PACKAGES where it knows it (Debian's pip refuses system installs without it)
# and ignores it elsewhere.
REQUIREMENTS_LAYER = """\
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
ARG PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS PIP_CERT HTTP_PROXY HTTPS_PROXY NO_PROXY
COPY chipperf-build/ /chipperf-build/
COPY requirements.txt /chipperf-build/case-requirements.txt
RUN PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --no-cache-dir \\
    -r /chipperf-build/case-requirements.txt
"""
LAYER_SUFFIX = "-req"


def layer_inputs(folder: Path, base_tag: str, requirements: Path, image: BuildInputs
                 ) -> BuildInputs:
    """The requirements layer's build inputs, its context written to ``folder``: the tag
    hashes the requirements, the layer's Dockerfile and the framework image's tag (itself a
    hash of its inputs)."""
    (folder / "Dockerfile").write_text(REQUIREMENTS_LAYER, encoding="utf-8")
    shutil.copyfile(requirements, folder / "requirements.txt")
    return BuildInputs(folder, image.wheel_files, image.ca_bundle,
                       {**image.build_args, "BASE_IMAGE": base_tag})


def ensure_case_image(client: Any, name: str, inputs: BuildInputs, cfg: ImageBuildConfig,
                      requirements: Path | None, where: str) -> str:
    """``ensure_image``, then, for a case with requirements, its layer on top (tagged
    ``<name>-req:<hash>``); ``where`` names the vendor and case in a failed layer's error."""
    tag = ensure_image(client, name, inputs, cfg)
    if requirements is None:
        return tag
    return ensure_layer(client, name, tag, inputs, cfg, requirements, where)


def ensure_layer(client: Any, name: str, base_tag: str, inputs: BuildInputs,
                 cfg: ImageBuildConfig, requirements: Path, where: str) -> str:
    """The requirements layer on ``base_tag`` (built from ``inputs``), built when missing."""
    with tempfile.TemporaryDirectory(prefix="chipperf-layer-") as tmp:
        layer = layer_inputs(Path(tmp), base_tag, requirements, inputs)
        try:
            return ensure_image(client, name + LAYER_SUFFIX, layer, cfg)
        except ImageError as exc:
            raise ImageError(f"{where}: {requirements}: installing the case's requirements "
                             f"on {base_tag} failed: {exc}: fix the line pip names, or make the "
                             "package reachable (PIP_INDEX_URL, WHEELHOUSE)") from exc


def _has_image(client: Any, tag: str) -> bool:
    import docker.errors

    try:
        client.images.get(tag)
        return True
    except docker.errors.ImageNotFound:
        return False


def _tag_same_inputs(client: Any, tag: str, where: str) -> bool:
    """Tag ``tag`` on ``client``'s engine from a chipperf image of another name with the same
    build-input hash (another suite's image built from the same files); False when none is."""
    repository, _, digest = tag.rpartition(":")
    for image in client.images.list(filters={"reference": f"chipperf/*:{digest}"}):
        image.tag(repository, digest)
        log.info("[%s] image %s: tagged from %s (the same build inputs)", where, tag,
                 ", ".join(image.tags))
        return True
    return False


def _write_context(out: Any, inputs: BuildInputs) -> None:
    with tarfile.open(fileobj=out, mode="w") as tar:
        for path in _context_files(inputs.context):
            tar.add(path, arcname=str(path.relative_to(inputs.context)))
        tar.addfile(_dir_info("chipperf-build/wheels"))
        for wheel in inputs.wheel_files:
            tar.add(wheel, arcname=f"chipperf-build/wheels/{wheel.name}")
        ca = inputs.ca_bundle.read_bytes() if inputs.ca_bundle else b""
        info = tarfile.TarInfo("chipperf-build/ca.crt")
        info.size = len(ca)
        tar.addfile(info, io.BytesIO(ca))


def _dir_info(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode = tarfile.DIRTYPE, 0o755
    return info


def _build(client: Any, context: Any, tag: str, inputs: BuildInputs, cfg: ImageBuildConfig) -> None:
    """Build ``tag``, logging each Dockerfile step and, within a long one (apt, pip), its
    latest output line every 10 s."""
    tail: list[str] = []
    every = Every()
    try:
        stream = client.api.build(fileobj=context, custom_context=True, tag=tag, rm=True,
                                  forcerm=True, buildargs=dict(inputs.build_args), decode=True,
                                  timeout=cfg.build_timeout_s, labels={"chipperf.image": "1"})
        for chunk in stream:
            if "error" in chunk:
                raise ImageError(f"building {tag} from {inputs.context} failed: "
                                 f"{chunk['error'].strip()}\n" + "".join(tail[-30:]))
            text = chunk.get("stream", "")
            if text:
                tail.append(text)
                if text.startswith("Step ") or text.startswith("#"):
                    log.info("  %s", text.strip())
                    every = Every()
                elif text.strip() and every.due():
                    log.info("    (%.0f s in this step) %s", every.elapsed(), text.strip()[:160])
    except ImageError:
        raise
    except Exception as exc:
        raise ImageError(f"building {tag} from {inputs.context} failed: {exc}\n"
                         + "".join(tail[-30:])) from exc


# A Dockerfile line "# chipperf-never-built: <why>" says chipperf has never built that image.
_NEVER_BUILT = re.compile(r"^#\s*chipperf-never-built:\s*(?P<why>.+?)\s*$", re.M)


def never_built(dockerfile: Path) -> str | None:
    """Why chipperf has never built this image, where its Dockerfile says so; else None."""
    found = _NEVER_BUILT.search(dockerfile.read_text()) if dockerfile.is_file() else None
    return found.group("why") if found else None


def base_images(dockerfile: Path, build_args: Mapping[str, str] | None = None) -> list[str]:
    """FROM images of a Dockerfile, with build args, else ARG defaults, substituted (stage
    names skipped)."""
    args: dict[str, str] = dict(build_args or {})
    bases, stages = [], set()
    for line in dockerfile.read_text(encoding="utf-8").splitlines():
        words = line.strip().split()
        if len(words) >= 2 and words[0].upper() == "ARG" and "=" in words[1]:
            key, _, value = words[1].partition("=")
            args.setdefault(key, value.strip("\"'"))
        elif len(words) >= 2 and words[0].upper() == "FROM":
            image = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), ""), words[1])
            if image not in stages and image != "scratch":
                bases.append(image)
            if len(words) >= 4 and words[2].upper() == "AS":
                stages.add(words[3])
    return bases


def ensure_base(client: Any, image: str, cfg: ImageBuildConfig) -> None:
    """Make ``image`` present: the local base is built here, any other named base is pulled."""
    if _has_image(client, image):
        return
    if image == LOCAL_BASE:
        log.info("base image %s is missing; building it with debootstrap from %s",
                 image, cfg.debian_mirror)
        build_local_base(client, image, cfg.debian_mirror)
        return
    log.info("base image %s is missing; pulling it (named by the Dockerfile)", image)
    try:
        client.images.pull(image)
    except Exception as exc:
        raise ImageError(f"base image {image} is not on the build engine and cannot be "
                         f"pulled ({exc}): load it with `docker load`, make its registry "
                         f"reachable, or use the local Debian base ({LOCAL_BASE}, built "
                         "with debootstrap)") from exc


def build_local_base(client: Any, image: str, mirror: str) -> None:
    """Debian bookworm minbase root filesystem, imported as ``image``."""
    if shutil.which("debootstrap") is None:
        raise ImageError(f"{image} must be built locally but debootstrap is not installed: "
                         "apt-get install -y debootstrap (needs root)")
    with tempfile.TemporaryDirectory(prefix="chipperf-rootfs-") as tmp:
        root = Path(tmp) / "rootfs"
        code, output = debootstrap(
            ["debootstrap", "--variant=minbase", "bookworm", str(root), mirror])
        if code != 0:
            raise ImageError(f"debootstrap of {image} from {mirror} failed: "
                             f"{output[-1500:]}: check the mirror, or set "
                             "DEBIAN_MIRROR in the test config")
        archive = Path(tmp) / "rootfs.tar"
        subprocess.run(["tar", "-C", str(root), "-cf", str(archive), "."], check=True)
        repo, _, tag = image.partition(":")
        client.api.import_image_from_file(str(archive), repository=repo, tag=tag or "latest")
    log.info("built base image %s", image)


def debootstrap(argv: list[str], every_s: float = 10.0) -> tuple[int, str]:
    """Run debootstrap, logging the first line of each stage (Retrieving, Extracting,
    Installing, ...) and otherwise its latest line every ``every_s`` (Retrieving and Validating
    alternate per package: each is logged once); returns (exit status, its last output)."""
    tail: list[str] = []
    seen: set[str] = set()
    count, every = 0, Every(every_s)
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace") as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            tail = (tail + [line])[-40:]
            now, count = stage(line), count + 1
            if now not in seen or every.due():
                log.info("  debootstrap (%.0f s, %d lines): %s", every.elapsed(), count,
                         line.strip()[:160])
                seen.add(now)
    return proc.returncode, "".join(tail)


# ---------------------------------------------------------------- shipping


def ship_image(source: Any, target: Any, tag: str, host: str) -> bool:
    """Load ``tag`` from the source engine into the target engine; False when already there."""
    if _has_image(target, tag) or _tag_same_inputs(target, tag, host):
        return False
    size = source.images.get(tag).attrs.get("Size")
    log.info("[%s] loading image %s (about %s)", host, tag, human_bytes(size))
    every = Every()

    def report(sent: int, done: bool) -> None:
        log.info("[%s] %s image %s: %s of about %s in %.0f s", host,
                 "sent" if done else "sending", tag, human_bytes(sent), human_bytes(size),
                 every.elapsed())

    try:
        # The engine answers as it loads and ends its answer when the image is in place (or
        # names why not): read it to the end, or the image may not be there yet.
        replies = list(target.api.load_image(counted(source.api.get_image(tag), report, every),
                                             quiet=True) or ())
    except Exception as exc:
        raise ImageError(f"{host}: loading image {tag} failed ({exc}): check free disk space on "
                         "the host's Docker data root") from exc
    said = [r for r in replies if isinstance(r, dict)]
    refused = next((str(r["error"]).strip() for r in said if r.get("error")), "")   # as _build reads it
    if refused:
        raise ImageError(f"{host}: loading image {tag} failed, the engine said: {refused}: "
                         "check free disk space on the host's Docker data root")
    if not _has_image(target, tag):
        loaded = " ".join(str(r.get("stream", "")).strip() for r in said).strip()[:300]
        raise ImageError(f"{host}: image {tag} is missing after loading it (the engine said: "
                         f"{loaded or 'nothing'})")
    return True
