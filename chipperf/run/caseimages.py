"""Each case's image before the cases run: built once on the master's engine and shipped to
the hosts its rounds use (or, IN_CONTAINER_LAUNCH, none at all).
"""

from __future__ import annotations

import logging
import time
from functools import partial
from typing import Any

from chipperf.config.model import TestConfig
from chipperf.containers import images
from chipperf.containers.pipconf import MasterPip, fill_from_master, master_pip_settings
from chipperf.errors import GroupError, HostError, ImageError
from chipperf.plan import RunPlan
from chipperf.remote import Host, HostGroup, LocalHost
from chipperf.run.case import case_failed
from chipperf.run.outcome import RunOutcome
from chipperf.run.record import RunRecord

log = logging.getLogger("chipperf")


def prepare_images(plan: RunPlan, test: TestConfig, hosts: HostGroup, record: RunRecord,
                   outcome: RunOutcome) -> dict[str, str]:
    """Build each case's image once on the master's engine and load it into every host's engine."""
    builder = _builder_engine(hosts)
    master = fill_from_master(test.image, master_pip_settings()) if test.image.pip_from_master \
        else MasterPip(test.image)
    build_cfg = master.config
    record.image_build(images.build_settings(build_cfg, master.filled, master.skipped))
    tags: dict[str, str] = {}
    for case in plan.cases:
        started = time.monotonic()
        try:
            inputs = images.build_inputs(case.image_context, build_cfg)
            tag = images.ensure_case_image(builder, case.image_name, inputs, build_cfg,
                                           case.adaptation.requirements,
                                           f"{case.key}: vendor {case.vendor!r}")
            used = sorted({n.host for r in case.rounds for n in r.nodes})
            hosts.run_step("ship image", partial(_ship, builder, tag), only=used)
        except (ImageError, GroupError, HostError) as exc:
            case_failed(case, record, outcome, f"image: {exc}")
            continue
        tags[case.key] = tag
        record.case(case.dir_name, image=tag, image_build=images.case_build(builder, inputs))
        log.info("image %s ready on %d host(s) in %.1f s", tag, len(used), time.monotonic() - started)
    return tags


def in_container_tags(plan: RunPlan, record: RunRecord,
                      container: str | None = None) -> dict[str, str]:
    """IN_CONTAINER_LAUNCH: no image is built or shipped; the cases run in the containers
    the hosts are (or, ``container``: IN_CONTAINER_NAME, in that container on each host), as
    they are."""
    where = (f"container {container!r} on each of " if container else "existing containers ")
    log.info("IN_CONTAINER_LAUNCH: no image build, no container started or removed; the cases "
             "run as processes in the %s%s", where, ", ".join(plan.hosts))
    for case in plan.cases:
        record.case(case.dir_name, image=None, in_container_launch=True)
    return {case.key: "" for case in plan.cases}


def _ship(builder: Any, tag: str, host: Host) -> bool:
    return images.ship_image(builder, host.docker(), tag, host.name)


def _builder_engine(hosts: HostGroup) -> Any:
    try:
        return LocalHost().docker()
    except HostError:
        first = next(iter(hosts.hosts.values()))
        log.info("no Docker engine on the master; building images on %s", first.name)
        return first.docker()
