"""chipperf's adapters of FlagPerf vendor folders (training/<vendor>/<case>/extern/
trainer_adapter.py) run in their case on the CPU: each hook is called by the loop and the tiny
preset still converges. The vendor's plug-in cannot be imported here, so a stand-in module of
the same name (only what the adapter uses, on torch's CPU path) is put on the path; nothing
here says how the vendor's chip runs."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from caserun import REPO, Case, check_converged, perflog_events

from chipperf_runtime.training.driver.adapter import load_adapter
from chipperf_runtime.training.driver.errors import ConfigError

RESNET50 = Case("resnet50", "pytorch")
BERT_HF = Case("bert_hf", "pytorch")
IMAGE_DATA = "digits"   # the image cases' data (the digits fixture); the others: DATA_SCRIPTS
DATA_SCRIPTS = {"tacotron2": ["--train", "64", "--val", "16"],
                "waveglow": ["--train", "32", "--val", "8"]}

# the stand-ins: the plug-in's names the adapters use, on torch's CPU path
TORCH_MUSA = '''"""Stand-in for Moore Threads' torch_musa (tests only): amp.GradScaler on the CPU."""
import torch


class amp:
    @staticmethod
    def GradScaler():
        return torch.amp.GradScaler("cpu")
'''

# a LAMB step on torch's CPU path, for the stand-ins' FusedLAMB (torch_xmlir's, apex's): Adam's
# moments, the update scaled per tensor by the trust ratio |w| / |update|
LAMB = '''import torch


class FusedLAMB(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.01):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in (p for p in group["params"] if p.grad is not None):
                state = self.state[p]
                if not state:
                    state.update(step=0, m=torch.zeros_like(p), v=torch.zeros_like(p))
                state["step"] += 1
                state["m"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                state["v"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                m = state["m"] / (1 - beta1 ** state["step"])
                v = state["v"] / (1 - beta2 ** state["step"])
                update = m / (v.sqrt() + group["eps"]) + group["weight_decay"] * p
                w, u = float(p.norm()), float(update.norm())
                p.add_(update, alpha=-group["lr"] * (w / u if w > 0 and u > 0 else 1.0))
'''
# Kunlunxin's torch_xmlir: xpu.xpu_synchronize and xpu.empty_cache (nothing to wait for or free
# on the CPU), optimizer.FusedLAMB
TORCH_XMLIR = {
    "torch_xmlir/__init__.py": '''"""Stand-in for Kunlunxin's torch_xmlir (tests only)."""
from torch_xmlir import optimizer, xpu  # noqa: F401
''',
    "torch_xmlir/xpu.py": "def xpu_synchronize():\n    pass\n\n\ndef empty_cache():\n    pass\n",
    "torch_xmlir/optimizer.py": LAMB,
}
# apex: optimizers.FusedLAMB, parallel.DistributedDataParallel (one rank: never called here),
# normalization.FusedLayerNorm (torch's layer norm under apex's name)
APEX = {
    "apex/__init__.py": '''"""Stand-in for NVIDIA's apex (tests only)."""\n''',
    "apex/optimizers.py": LAMB,
    "apex/parallel.py": "from torch.nn.parallel import DistributedDataParallel  # noqa: F401\n",
    "apex/normalization.py": "import torch\n\n\nclass FusedLayerNorm(torch.nn.LayerNorm):\n"
                             "    pass\n",
}


def stand_in_packages(tmp: Path, files: dict[str, str]) -> Path:
    site = tmp / "site"
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return site


def vendor_case(tmp: Path, vendor: str, case: Case) -> Path:
    """A copy of the vendor's case folder whose configs are the cpu CI ones; its config/."""
    folder = tmp / vendor / f"{case.model}-{case.family}"
    shutil.copytree(REPO / "training" / vendor / folder.name / "extern", folder / "extern")
    shutil.copytree(case.cpu_configs, folder / "config")
    return folder / "config"


def stand_in(tmp: Path, module: str, text: str) -> Path:
    site = tmp / "site"
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(text)
    return site


def adapted_run(vendor: str, case: Case, data: Path, tmp: Path, site: Path | None,
                *overrides: str) -> list:
    """The case from the vendor folder's adapter with ``--set`` overrides (and a stand-in
    plug-in folder on the path): its PerfLog events (the run must succeed)."""
    config_dir = vendor_case(tmp, vendor, case)
    env = case.env()
    if site is not None:
        env["PYTHONPATH"] = f"{env['PYTHONPATH']}:{site}"
    sets = [arg for name_value in overrides for arg in ("--set", name_value)]
    result = case.run_config(data, *sets, config_dir=config_dir, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    return perflog_events(result.stdout)


def trained(events: list, hooks: list[str]) -> dict:
    """FINISHED of a short run whose adapter ran exactly ``hooks`` and whose loss went down
    (the mean of the last third of the steps' losses below that of the first third)."""
    finished = events[-1].value
    assert events[-1].name == "FINISHED" and finished["execution"]["adapter_hooks"] == hooks
    losses = [e.value["loss"] for e in events if e.name == "STEP_END"]
    third = len(losses) // 3
    first, last = sum(losses[:third]) / third, sum(losses[-third:]) / third
    assert third >= 3 and last < first, losses
    print(f"adapter hooks {hooks}: loss {first:.3f} -> {last:.3f} over {len(losses)} steps")
    return finished


def run_mthreads(case: Case, data: Path, tmp: Path) -> list:
    """The case from the mthreads folder's adapter, torch_musa's stand-in on the path: its
    PerfLog events (the run must succeed)."""
    config_dir = vendor_case(tmp, "mthreads", case)
    site = stand_in(tmp, "torch_musa", TORCH_MUSA)
    env = case.env()
    result = case.run_config(data, config_dir=config_dir, timeout=600,
                             env={**env, "PYTHONPATH": f"{env['PYTHONPATH']}:{site}"})
    assert result.returncode == 0, result.stderr[-4000:]
    return perflog_events(result.stdout)


def test_mthreads_resnet50_adapter_trains_the_digits(digits: Path, tmp_path: Path) -> None:
    """FlagPerf's mthreads resnet50 adapter as chipperf carries it: channels-last weights,
    the grad scaler hook and its own train_step, which every step of the run goes through; the
    loss goes down over 15 steps (no warmup), as the kunlunxin adapters' below."""
    hooks = ["convert_model", "create_grad_scaler", "train_step"]
    site = stand_in(tmp_path, "torch_musa", TORCH_MUSA)
    events = adapted_run("mthreads", RESNET50, digits, tmp_path, site, "max_steps=15",
                         "log_every_steps=1", "warmup_epochs=0")
    submit = next(e.value for e in events if e.name == "SUBMIT_INFO")
    assert submit["trainer_adapter"]["hooks"] == hooks
    finished = trained(events, hooks)
    print(f"mthreads resnet50 adapter: execution {finished['execution']}")


def test_mthreads_bert_hf_adapter_trains_the_ci_text(tmp_path: Path) -> None:
    """FlagPerf's mthreads bert_hf adapter as chipperf carries it: its train_one_step runs every
    step of the text loop, after its create_grad_scaler (none: the CI config is fp32)."""
    data = tmp_path / "data"
    subprocess.run([sys.executable, str(BERT_HF.dir / "prepare_data.py"), "--output", str(data)],
                   check=True, timeout=120)
    events = run_mthreads(BERT_HF, data, tmp_path)
    finished = check_converged(events)
    assert finished["execution"]["adapter_hooks"] == ["create_grad_scaler", "train_one_step"]
    print(f"mthreads bert_hf adapter: {finished['metric']['name']} "
          f"{finished['metric']['value']:.3f} (target {finished['metric']['target']}), "
          f"execution {finished['execution']}")


# (case, dtype, steps, the hooks that run): the kunlunxin adapters whose every function has a
# point in chipperf's loops; bf16 where the adapter has model_to_fp16 (the loop calls it for
# fp16 and bf16 only; autocast to bf16 runs on the CPU), a few steps each
KUNLUNXIN = [
    ("resnet50", "bf16", 15, ["model_to_fp16"]),
    ("efficientnet", "bf16", 24, ["convert_model", "model_to_fp16", "create_grad_scaler"]),
    ("vit", "bf16", 24, ["convert_model", "model_to_fp16", "create_grad_scaler"]),
    ("mobilenetv2", "bf16", 30, ["model_to_fp16", "create_grad_scaler"]),
    ("tacotron2", "fp32", 12, ["create_grad_scaler", "calculate_loss"]),
    ("waveglow", "fp32", 12, ["create_grad_scaler"]),
]


@pytest.mark.parametrize("model,dtype,steps,hooks", KUNLUNXIN, ids=[k[0] for k in KUNLUNXIN])
def test_kunlunxin_adapter_runs_its_hooks_and_trains(model: str, dtype: str, steps: int,
                                                     hooks: list[str], digits: Path,
                                                     tmp_path: Path) -> None:
    """FlagPerf's kunlunxin adapters as chipperf carries them: each hook is called at its point
    of the case's loop (FINISHED's adapter_hooks) and the tiny preset's loss goes down over a
    few steps (the image cases without warmup: the lr is the config's from the first step;
    the loss cases evaluate once, at the end)."""
    case = Case(model, "pytorch")
    data = digits
    if model in DATA_SCRIPTS:
        data = tmp_path / "data"
        subprocess.run([sys.executable, str(case.dir / "prepare_data.py"), "--output", str(data),
                        *DATA_SCRIPTS[model]], check=True, timeout=120)
    quick = ["eval_every_steps=1000"] if model in DATA_SCRIPTS else ["warmup_epochs=0"]
    events = adapted_run("kunlunxin", case, data, tmp_path, None, f"dtype={dtype}",
                         f"max_steps={steps}", "log_every_steps=1", *quick)
    submit = next(e.value for e in events if e.name == "SUBMIT_INFO")
    assert submit["trainer_adapter"]["hooks"] == sorted(hooks)
    assert trained(events, hooks)["dtype"] == dtype


def test_kunlunxin_mobilenetv2_adapter_halves_the_network_for_fp16_only(tmp_path: Path) -> None:
    """Its model_to_fp16 casts the weights to fp16 (FlagPerf's ``fp16``) and leaves a bf16
    network as it is: the adapter's function called directly (the CPU run above is bf16)."""
    path = REPO / "training/kunlunxin/mobilenetv2-pytorch/extern/trainer_adapter.py"
    spec = importlib.util.spec_from_file_location("kunlunxin_mobilenetv2_adapter", path)
    assert spec is not None and spec.loader is not None
    adapter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(adapter)
    halved = adapter.model_to_fp16(torch.nn.Linear(2, 2), SimpleNamespace(dtype="fp16"))
    kept = adapter.model_to_fp16(torch.nn.Linear(2, 2), SimpleNamespace(dtype="bf16"))
    assert halved.weight.dtype == torch.float16 and kept.weight.dtype == torch.float32
    assert adapter.create_grad_scaler(SimpleNamespace(dtype="fp16")) is None


# (vendor, case, dtype, overrides, the hooks that run, the optimizer that trained): the bert,
# cpm and glm adapters on the text loop (fp16: its loss scaler; the stand-ins' FusedLAMB); bert's
# LAMB at a rate that moves the tiny preset's loss in 9 steps; cpm's fp16 scale starts at 2**32
# (Megatron's), so its first 14 steps overflow and are skipped: 30 steps
BERT_QUICK = ("max_steps=9", "learning_rate=3e-2")
TEXT = [
    ("kunlunxin", "bert", "bf16", BERT_QUICK,
     ["convert_model", "model_to_fp16", "create_optimizer", "backward"], "FusedLAMB"),
    ("iluvatar", "bert", "fp16", BERT_QUICK,
     ["create_optimizer", "create_grad_scaler", "backward"], "FusedLAMB"),
    ("kunlunxin", "cpm", "fp16", ("max_steps=30",),
     ["convert_model", "create_optimizer", "create_grad_scaler"], "Adam"),
    ("kunlunxin", "glm", "bf16", ("max_steps=15",),
     ["convert_model", "model_to_fp16", "backward"], "AdamW"),
    ("metax", "glm", "bf16", ("max_steps=15",), ["convert_model"], "AdamW"),
    ("iluvatar", "glm", "bf16", ("max_steps=15",), ["convert_model"], "AdamW"),
    ("dcu", "glm", "bf16", ("max_steps=15",), ["convert_model"], "AdamW"),
]
TEXT_SMALL = ("global_batch_size=8", "eval_samples=64", "warmup_steps=0",
              "eval_every_steps=1000", "log_every_steps=1")


@pytest.fixture(scope="module")
def text_data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each text case's CI data (its prepare_data.py), made once for the module."""
    made = {}
    for model in sorted({row[1] for row in TEXT}):
        made[model] = tmp_path_factory.mktemp(model)
        subprocess.run([sys.executable, str(Case(model, "pytorch").dir / "prepare_data.py"),
                        "--output", str(made[model])], check=True, timeout=120)
    return made


@pytest.mark.parametrize("vendor,model,dtype,overrides,hooks,optimizer", TEXT,
                         ids=[f"{t[0]}-{t[1]}" for t in TEXT])
def test_text_adapter_runs_its_hooks_and_trains(vendor: str, model: str, dtype: str,
                                                overrides: tuple[str, ...], hooks: list[str],
                                                optimizer: str, text_data: dict[str, Path],
                                                tmp_path: Path) -> None:
    """kunlunxin's and iluvatar's bert, kunlunxin's cpm and the glm adapters as chipperf carries them,
    their plug-ins' stand-ins on the path: the hooks run at their points, the adapter's
    optimizer trains, fp16 goes through a loss scaler, and the loss goes down."""
    site = stand_in_packages(tmp_path, {**TORCH_XMLIR, **APEX})
    events = adapted_run(vendor, Case(model, "pytorch"), text_data[model], tmp_path, site,
                         f"dtype={dtype}", *overrides, *TEXT_SMALL)
    finished = trained(events, hooks)
    assert finished["dtype"] == dtype and finished["execution"]["optimizer"] == optimizer
    assert finished["execution"].get("grad_scaler") == ("GradScaler" if dtype == "fp16" else None)


@pytest.mark.parametrize("folder,plugin", [("kunlunxin/bert-pytorch", "torch_xmlir"),
                                           ("iluvatar/bert-pytorch", "apex")])
def test_an_adapter_without_its_plugin_is_refused_by_name(folder: str, plugin: str) -> None:
    """Without the vendor's plug-in (no stand-in on the path) the adapter does not import: the
    case's loader names the file and the missing module (the case then stops with exit 2)."""
    assert importlib.util.find_spec(plugin) is None
    config_dir = REPO / "training" / folder / "config"
    with pytest.raises(ConfigError) as err:
        load_adapter(config_dir)
    assert str(err.value).startswith(
        f"{config_dir.parent / 'extern' / 'trainer_adapter.py'}: importing the vendor's trainer "
        f"adapter failed: ModuleNotFoundError: No module named '{plugin}'")
