"""Shipping an image from the master's Docker engine to a simulated host's, over SSH, with the
progress lines a user sees (bytes sent per host)."""

from __future__ import annotations

import io
import logging
import os
import tarfile
import uuid

import pytest

from chipperf.config.model import ClusterConfig
from chipperf.containers import images, progress
from chipperf.remote import SSHHost

pytestmark = pytest.mark.integration

PAYLOAD = 3 * 1024 * 1024   # random bytes: the docker save stream comes in many chunks


def rootfs_tar() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("payload.bin")
        info.size = PAYLOAD
        tar.addfile(info, io.BytesIO(os.urandom(PAYLOAD)))
    return buffer.getvalue()


def test_shipping_a_real_image_logs_bytes_sent_to_the_host(sim_cluster, local_docker, monkeypatch,
                                                           caplog):
    sim = sim_cluster.hosts[0]
    config = ClusterConfig(hosts=(sim.address,), ssh_user=sim_cluster.ssh_user,
                           ssh_key=sim_cluster.ssh_key, known_hosts=sim_cluster.known_hosts,
                           connect_timeout_s=5)
    host = SSHHost(sim.address, config)
    tag = f"chipperf-test/shipping:{uuid.uuid4().hex[:12]}"
    local_docker.api.import_image_from_data(rootfs_tar(), repository=tag.split(":")[0],
                                            tag=tag.split(":")[1])
    target = host.docker()
    monkeypatch.setattr(images, "Every", lambda: progress.Every(0.0))   # every chunk reports
    try:
        with caplog.at_level(logging.INFO, logger="chipperf"):
            assert images.ship_image(local_docker, target, tag, sim.address) is True
        assert target.images.get(tag).id == local_docker.images.get(tag).id
        lines = [r.getMessage() for r in caplog.records if tag in r.getMessage()]
        assert lines[0] == f"[{sim.address}] loading image {tag} (about 3.0 MiB)"
        sending = [line for line in lines if " sending image " in line]
        assert len(sending) >= 2, lines
        sent = lines[-1]
        assert sent.startswith(f"[{sim.address}] sent image {tag}: 3.")
        assert " MiB of about 3.0 MiB in " in sent
        assert images.ship_image(local_docker, target, tag, sim.address) is False   # already there
    finally:
        for engine in (target, local_docker):
            try:
                engine.images.remove(tag, force=True)
            except Exception:  # noqa: BLE001 (best effort: the image may not have arrived)
                pass
        host.close()


def test_an_image_of_the_same_build_inputs_is_tagged_not_rebuilt(local_docker, caplog):
    """Suites name their images apart (chipperf/<suite>-<vendor>-<folder>); one whose folder
    holds the same files (same input hash, the tag) gets the other's image under its name."""
    digest = uuid.uuid4().hex[:16]
    built, wanted = f"chipperf/test-training:{digest}", f"chipperf/test-base:{digest}"
    local_docker.api.import_image_from_data(rootfs_tar(), repository=built.split(":")[0],
                                            tag=digest)
    try:
        with caplog.at_level(logging.INFO, logger="chipperf"):
            assert images._tag_same_inputs(local_docker, wanted, "master") is True
        assert local_docker.images.get(wanted).id == local_docker.images.get(built).id
        assert f"image {wanted}: tagged from" in caplog.text
        assert images._tag_same_inputs(local_docker, f"chipperf/test-x:{digest[::-1]}",
                                       "master") is False
    finally:
        for tag in (wanted, built):
            try:
                local_docker.images.remove(tag, force=True)
            except Exception:  # noqa: BLE001 (best effort)
                pass
