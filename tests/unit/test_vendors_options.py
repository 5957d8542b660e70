"""Container options as FlagPerf's vendors write them (training/run_benchmarks/config/
test_conf.py, its kunlunxin CI, and FlagPerf's own ``docker run`` arguments) parse into
the docker SDK's ``containers.run()`` keywords; the SDK's own translation to the Engine
API (``_create_container_args``) accepts every result; what chipperf cannot honour is
refused, named."""

from __future__ import annotations

import pytest
from docker.models.containers import _create_container_args

from chipperf.containers.containerplan import split_options
from chipperf.containers.options import parse_cli_options, vendor_options
from chipperf.containers.spec import ContainerSpec, Mount, run_kwargs
from chipperf_runtime.vendors import get_vendor, vendor_names

# From FlagPerf test_conf.py's ACCE_CONTAINER_OPT comment block, verbatim except ascend's,
# whose comment contains Python concatenation marks ("+ \") and a davinciX placeholder:
# those are removed / written as davinci0 (the "+" itself is refused: see below).
FLAGPERF = {
    "iluvatar": " -v /lib/modules:/lib/modules ",
    "kunlunxin": (" --device=/dev/xpu0 --device=/dev/xpu1 --device=/dev/xpu2"
                  " --device=/dev/xpu3 --device=/dev/xpu4 --device=/dev/xpu5"
                  " --device=/dev/xpu6 --device=/dev/xpu7 --device=/dev/xpuctrl"),
    "nvidia": " --gpus all",
    "ascend": ("--device=/dev/davinci0 --device=/dev/davinci_manager "
               "--device=/dev/devmm_svm --device=/dev/hisi_hdc "
               "-v /usr/local/Ascend/driver -v /usr/local/dcmi -v /usr/local/bin/npu-smi"),
    "mthreads": " --env MTHREADS_VISIBLE_DEVICES=all",
    "metax": " --device=/dev/infiniband --device=/dev/dri --device=/dev/mxcd --group-add video",
    "dcu": "-v /opt/hyhal/:/opt/hyhal/ --device=/dev/kfd --device=/dev/dri/ --group-add video",
}
# FlagPerf's run.py adds these to every container it starts.
FLAGPERF_BASE = (" --rm --init --detach --net=host --uts=host --ipc=host"
                 " --security-opt=seccomp=unconfined --privileged=true --ulimit=stack=67108864"
                 " --ulimit=memlock=-1 --shm-size=32G")


def sdk_args(options):
    """What the run passes to the SDK for these options, split as the plan splits them."""
    parts = split_options(options)
    spec = ContainerSpec("c", "img", ("python3", "-V"), {**parts.env, "MASTER_PORT": "29500"},
                         (Mount("/work", "/work"), *parts.mounts), "run1",
                         parts.shm_size or "16g", parts.devices, parts.options)
    return _create_container_args({"image": "img", "version": "1.41", **run_kwargs(spec)})


@pytest.mark.parametrize("vendor", sorted(FLAGPERF))
def test_flagperf_vendor_options_parse_and_reach_the_sdk(vendor):
    kwargs, problems = parse_cli_options(FLAGPERF[vendor] + FLAGPERF_BASE)
    assert problems == []
    host = sdk_args(kwargs)["host_config"]
    assert host["NetworkMode"] == "host" and host["Privileged"] is True
    assert host["ShmSize"] == 32 * 2**30 and host["IpcMode"] == "host"
    assert {u["Name"]: u["Soft"] for u in host["Ulimits"]} == {"stack": 67108864, "memlock": -1}


def test_what_each_flagperf_option_becomes():
    host = lambda v: sdk_args(parse_cli_options(FLAGPERF[v])[0])["host_config"]  # noqa: E731
    assert host("nvidia")["DeviceRequests"][0]["Count"] == -1
    assert [d["PathOnHost"] for d in host("kunlunxin")["Devices"]][-1] == "/dev/xpuctrl"
    assert len(host("kunlunxin")["Devices"]) == 9
    assert host("metax")["GroupAdd"] == ["video"]
    assert "/opt/hyhal/:/opt/hyhal/:rw" in host("dcu")["Binds"]
    assert "/lib/modules:/lib/modules:rw" in host("iluvatar")["Binds"]
    # docker's meaning of `-v /path` is an anonymous volume, and so it is here
    assert [m["Target"] for m in host("ascend")["Mounts"]] == [
        "/usr/local/Ascend/driver", "/usr/local/dcmi", "/usr/local/bin/npu-smi"]
    env = sdk_args(parse_cli_options(FLAGPERF["mthreads"])[0])["environment"]
    assert env == {"MTHREADS_VISIBLE_DEVICES": "all", "MASTER_PORT": "29500"}


def test_options_do_not_override_the_plan():
    kwargs, problems = parse_cli_options("--env MASTER_PORT=1 --env CHIPPERF_DEVICE=cpu")
    assert kwargs == {} and len(problems) == 2
    assert all("the plan sets this variable" in p for p in problems)


@pytest.mark.parametrize("text, named", [
    ("--net=bridge", "host network"), ("--network none", "host network"),
    ("+", "+ is not an option"), ("-it", "not interactive"), ("--name x", "names its containers"),
    ("--gpus some", "use 'all'"), ("--device=dri", "/dev/host"), ("--ulimit nofile=lots", "name=soft"),
    ("-v a:b:c:d", "/host/path"), ("--env NOVALUE", "NAME=value"), ("--shm-size=big", "size"),
    ("--privileged=maybe", "true or false"), ("--ipc=private", "only host"), ("--gpus", "needs a value"),
    ("--cpus 4", "--cpus is not an option"), ("--rm=false", "always does this"),
    ("-v /a:/b -v /a:/c", "mounted twice"), ("--device '/dev/x", "cannot split"),
])
def test_refused_options_are_named(text, named):
    _, problems = parse_cli_options(text)
    assert len(problems) == 1 and named in problems[0], problems


# SDK keyword -> the Engine API HostConfig field it becomes, value for value.
HOST_FIELD = {"device_requests": "DeviceRequests", "group_add": "GroupAdd", "cap_add": "CapAdd",
              "ipc_mode": "IpcMode", "ulimits": "Ulimits", "privileged": "Privileged",
              "security_opt": "SecurityOpt", "runtime": "Runtime"}
SPLIT = {"devices", "volumes_extra", "environment"}   # what the plan splits into the spec's parts


@pytest.mark.parametrize("vendor", vendor_names())
def test_every_vendor_options_reach_the_sdk(vendor):
    """Each option a vendor module gives its case container, for 1 and 8 processes, is in the
    Engine API's create request: every device, bind, variable and host setting."""
    for nproc in (1, 8):
        kwargs = vendor_options(get_vendor(vendor).container_options(nproc))
        args = sdk_args(kwargs)
        host = args["host_config"]
        assert vendor == "cpu" or kwargs, "a chip's container needs its device access"
        assert set(kwargs) <= set(HOST_FIELD) | SPLIT, f"options this test does not follow: {kwargs}"
        assert {k: host.get(f) for k, f in HOST_FIELD.items() if k in kwargs} == \
            {k: v for k, v in kwargs.items() if k in HOST_FIELD}
        assert [f"{d['PathOnHost']}:{d['PathInContainer']}:{d['CgroupPermissions']}"
                for d in host.get("Devices", [])] == kwargs.get("devices", [])
        assert {f"{src}:{b['bind']}:{b.get('mode', 'rw')}"
                for src, b in kwargs.get("volumes_extra", {}).items()} <= set(host["Binds"])
        assert kwargs.get("environment", {}).items() <= args["environment"].items()


# The options issue 11 lists, each as a docker run user writes it, and what the SDK gets.
@pytest.mark.parametrize("text, field, expect", [
    ("--gpus all", "DeviceRequests", [{"Driver": "", "Count": -1, "DeviceIDs": [],
                                       "Capabilities": [["gpu"]], "Options": {}}]),
    ("--device=/dev/xpu0", "Devices", [{"PathOnHost": "/dev/xpu0", "PathInContainer": "/dev/xpu0",
                                        "CgroupPermissions": "rwm"}]),
    ("--group-add video", "GroupAdd", ["video"]),
    ("-v /opt/hyhal:/opt/hyhal", "Binds", ["/opt/hyhal:/opt/hyhal:rw", "/work:/work:rw"]),
    ("--privileged", "Privileged", True),
    ("--ipc=host", "IpcMode", "host"),
    ("--ulimit nofile=65536:65536", "Ulimits", [{"Name": "nofile", "Soft": 65536, "Hard": 65536}]),
    ("--cap-add SYS_PTRACE --cap-add=IPC_LOCK", "CapAdd", ["SYS_PTRACE", "IPC_LOCK"]),
    ("--security-opt seccomp=unconfined", "SecurityOpt", ["seccomp=unconfined"]),
    ("--net=host", "NetworkMode", "host"),
    ("--shm-size 64g", "ShmSize", 64 * 2**30),
])
def test_each_option_the_issue_names_reaches_the_sdk(text, field, expect):
    kwargs, problems = parse_cli_options(text)
    assert problems == []
    host = sdk_args(kwargs)["host_config"]
    assert (sorted(host[field]) if field == "Binds" else host[field]) == expect
