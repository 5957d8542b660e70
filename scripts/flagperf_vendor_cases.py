"""Write chipperf's vendor case folders from FlagPerf's (training/<vendor>/<model>-<framework>/).

For every FlagPerf vendor case folder whose model chipperf has, this writes
``training/<vendor>/<model>-<family>/`` where ``family`` is the chipperf case that runs it: the
same framework when chipperf has that case (``bert-paddle``), else chipperf's torch-native
``pytorch`` case for FlagPerf's Megatron-LM / FlagScale / DeepSpeed folders (the plan says so
for each key, docs/flagperf-names.md). What is carried, each file naming FlagPerf's commit:

- ``config/config_common.py`` (and any module the configs star-import) and
  ``config/config_<chip>x<nnodes>x<nproc>.py``: FlagPerf's values as FlagPerf writes them
  (chipperf reads FlagPerf's names, docs/flagperf-names.md). A line chipperf's vendor-config
  reader refuses, and each other import (the case runs its config as Python, without
  FlagPerf's modules), is kept as a comment saying why.
- ``config/environment_variables.sh``: FlagPerf's variables; a line chipperf's reader cannot
  set literally (shell expansion, a command) is kept as a comment saying why.
- ``config/requirements.txt`` (only where chipperf runs the same framework as FlagPerf): the
  packages, less those the image provides (torch, paddle, ...), kept as comments.
- ``README.md``: where it came from and what of FlagPerf's folder is not carried (the
  trainer adapter, FlagPerf's Megatron/DeepSpeed launch files), with what those did.

A folder chipperf already has keeps its files; FlagPerf's configs for chips it lacks are added
as whole files (FlagPerf's config_common values, then the topology's), so they do not mix with
chipperf's own config_common.py. Run from the repository root:

    git clone --bare https://github.com/FlagOpen/FlagPerf /tmp/FlagPerf.git
    python scripts/flagperf_vendor_cases.py /tmp/FlagPerf.git

(the git directory of a FlagPerf clone; its HEAD commit is the one written into each file:
the folders in this repository were written from 1b5a030398ab719e406f77877eb34c9599b17fd2),
on a checkout without the folders it writes: it does not overwrite a file, and it treats a
folder that has a config_common.py as chipperf's own. It prints one line per folder.

scripts/flagperf_vendor_extras.py carries the folders FlagPerf keeps off its main branch and
lists FlagPerf's trainer adapters against chipperf's hooks.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from chipperf.config.adaptation import parse_env_line
from chipperf.config.flagperf_aliases import FLAGPERF_IMPLEMENTATIONS, TORCH_NATIVE
from chipperf.config.vendorconfig import check_vendor_config
from chipperf.frameworks import family
from chipperf.plan.case import RUNTIME
from chipperf.suites.catalogue import Catalogue
from chipperf_runtime.vendors import get_vendor

VENDORS = ("kunlunxin", "metax", "iluvatar", "mthreads", "dcu", "ascend", "cambricon")
TRAINING = Path("training").resolve()
CONFIG = re.compile(r"config_(.+)x(\d+)x(\d+)\.py$")
STAR_IMPORT = re.compile(r"^from\s+\.?(\w+)\s+import\s+\*")
# packages the vendor image provides: a case requirement pinning one would replace it
IMAGE_PACKAGES = re.compile(r"^\s*(torch|torchvision|torchaudio|paddlepaddle\S*|deepspeed|"
                            r"megatron\S*|apex|mindspore\S*)\b|\.whl\s*$", re.I)


@dataclass(frozen=True)
class Source:
    git_dir: Path
    commit: str
    where: str = ""      # a commit off FlagPerf's main branch: the branch or pull request

    def files(self, folder: str) -> list[str]:
        out = subprocess.run(["git", "--git-dir", str(self.git_dir), "ls-tree", "-r", "--name-only",
                              self.commit, folder + "/"], capture_output=True, text=True, check=True)
        return out.stdout.split()

    def folders(self, vendor: str) -> list[str]:
        out = subprocess.run(["git", "--git-dir", str(self.git_dir), "ls-tree", "-d", "--name-only",
                              self.commit, f"training/{vendor}/"], capture_output=True, text=True,
                             check=True)
        return [Path(p).name for p in out.stdout.split() if Path(p).name != "docker_image"]

    def text(self, path: str) -> str:
        return subprocess.run(["git", "--git-dir", str(self.git_dir), "show", f"{self.commit}:{path}"],
                              capture_output=True, text=True, check=True).stdout

    def header(self, path: str) -> str:
        at = f"{self.commit[:8]} ({self.where})" if self.where else self.commit[:8]
        line = f"# From FlagOpen/FlagPerf@{at} {path} (values as FlagPerf sets them)."
        # FlagPerf's Python as FlagPerf writes it (star imports, long lines): not linted here
        return line + "\n# ruff: noqa" if path.endswith(".py") else line


def target_case(folder: str, catalogue: Catalogue) -> tuple[str, str, str] | None:
    """FlagPerf's folder name -> (chipperf model, chipperf family, FlagPerf framework), or None
    when chipperf has no case that runs it."""
    model, _, framework = folder.partition("-")
    framework = framework or TORCH_NATIVE     # ascend's bert_hf folder names no framework
    model = catalogue.case_name(model if model.lower() != "waveglow" else "waveglow")
    if (model, family(framework)) in catalogue.cases:
        return model, family(framework), framework
    if family(framework) in FLAGPERF_IMPLEMENTATIONS and (model, TORCH_NATIVE) in catalogue.cases:
        return model, TORCH_NATIVE, framework
    return None


def env_lines(text: str, devices_env: str | None = None) -> list[str]:
    """FlagPerf's environment file with each line chipperf cannot set literally commented, and
    the vendor's visible-devices variable (``devices_env``), which the plan sets per node."""
    kept = []
    for line in text.splitlines():
        parsed = parse_env_line(line)
        if isinstance(parsed, str):
            kept.append(f"# not carried ({_env_why(parsed)}): {line.strip()}")
        elif parsed is not None and parsed[0] == devices_env:
            kept.append("# not carried (chipperf sets the visible devices per node from the case "
                        f"key's nproc): {line.strip()}")
        else:
            kept.append(line.rstrip())
    return kept


def _env_why(problem: str) -> str:
    if "expansion" in problem:
        return "shell expansion: chipperf sets each value literally"
    if "launch contract" in problem:
        return "chipperf's launch contract sets it"
    return "a shell command, not an assignment"


def requirement_lines(text: str) -> list[str]:
    return [_requirement(line) for line in text.splitlines()]


def _requirement(line: str) -> str:
    text = line.split("#", 1)[0].strip()
    if not text:
        return line.rstrip()
    if IMAGE_PACKAGES.search(text):
        return f"# not carried (the vendor image provides it): {line.strip()}"
    try:
        Requirement(text)
    except InvalidRequirement:
        return (f"# not carried (not a package name or an archive URL, what chipperf's image "
                f"layer installs): {line.strip()}")
    return line.rstrip()


def adapter_summary(text: str) -> str:
    """The hooks a FlagPerf trainer adapter defines (its top-level functions)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return "does not parse as Python"
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    uses = sorted({f"{n.module}.{a.name}" if isinstance(n, ast.ImportFrom) else a.name
                   for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
                   for a in n.names} - {"os", "typing.Tuple", "torch"})
    hooks = ", ".join(f"`{n}`" for n in names) if names else "no function"
    return f"defines {hooks}" + (f", with {', '.join(f'`{u}`' for u in uses)}" if uses else "")


@dataclass
class Written:
    target: Path
    source_folders: list[str]
    framework: str
    configs: list[str]
    kept_existing: list[str]
    not_carried: list[str]


def write_case(src: Source, vendor: str, folder: str, model: str, fam: str, framework: str,
               into: Written | None) -> Written:
    base = f"training/{vendor}/{folder}"
    target = TRAINING / vendor / f"{model}-{fam}"
    existed = (target / "config" / "config_common.py").is_file() and into is None
    done = into or Written(target, [], framework, [], [], [])
    done.source_folders.append(base)
    (target / "config").mkdir(parents=True, exist_ok=True)
    files = src.files(base)
    helpers = _star_imported(src, [p for p in files if "/config/" in p and p.endswith(".py")])
    for path in files:
        name = Path(path).name
        if CONFIG.match(name):
            _write_config(src, path, target / "config" / name, helpers, existed, done)
        elif Path(path).stem in helpers:     # inlined into the configs of a folder chipperf had
            if not existed:
                _write(target / "config" / name, [src.header(path),
                                                  _without_imports(src.text(path), helpers)])
        elif name == "environment_variables.sh":
            if not (target / "config" / name).exists():    # else: the folder's own, kept
                _write(target / "config" / name, [src.header(path), *env_lines(
                    src.text(path), get_vendor(vendor).visible_devices_env)])
        elif name == "requirements.txt":
            _requirements(src, path, target / "config" / name, fam == family(framework), done)
        elif name == "trainer_adapter.py":
            done.not_carried.append(f"`{path}`: FlagPerf's trainer adapter, "
                                    f"{adapter_summary(src.text(path))}; not carried (FlagPerf's "
                                    "code; chipperf's adapter API is "
                                    "chipperf_runtime/training/driver/adapter.py)")
        elif name not in ("README.md", ".gitkeep", "__init__.py"):
            done.not_carried.append(f"`{path}`: {_why_not(name, fam, framework)}")
    return done


def _star_imported(src: Source, configs: list[str]) -> dict[str, str]:
    """config_common.py and the modules of FlagPerf's config folder that its configs
    star-import (iluvatar's config_BI_common.py): module name -> path. Any other .py there is
    code."""
    by_name = {Path(p).stem: p for p in configs}
    names = {"config_common"} | {m.group(1) for p in configs for line in src.text(p).splitlines()
                                 if (m := STAR_IMPORT.match(line))}
    return {name: by_name[name] for name in sorted(names & set(by_name))}


def _write_config(src: Source, path: str, out: Path, helpers: dict[str, str], existed: bool,
                  done: Written) -> None:
    if out.exists():
        done.kept_existing.append(out.name)
        return
    lines = [src.header(path)]
    text = src.text(path)
    if existed:   # chipperf's own config_common.py is beside it: FlagPerf's values inline
        lines[0] = lines[0].replace("them).", "them). The modules it star-imports are written "
                                    "out in its place.", 1)
        text = _inline(src, text, helpers)
    lines.append(_without_imports(text, helpers))
    _write(out, lines)
    done.configs.append(out.name)


def _without_imports(text: str, helpers: dict[str, str]) -> str:
    """FlagPerf's config with each import commented, but the star import of a module of its
    own config folder: the case runs the config as Python in the container, where FlagPerf's
    modules (MLU_FP16_FLOPS, its Megatron tree) are not."""
    out = []
    for line in text.rstrip().splitlines():
        star = STAR_IMPORT.match(line)
        if re.match(r"^(import|from)\s", line) and not (star and star.group(1) in helpers):
            line = f"# not carried (an import: FlagPerf's modules are not in chipperf's case): {line}"
        out.append(line)
    return "\n".join(out)


def _inline(src: Source, text: str, helpers: dict[str, str]) -> str:
    out = []
    for line in text.splitlines():
        star = STAR_IMPORT.match(line)
        if star and star.group(1) in helpers:
            out.append(INLINED_NOTE)
            out.extend(_values_only(_inline(src, src.text(helpers[star.group(1)]), helpers)))
            out.append("")
        elif not re.match(r"^\s*(import|from)\s", line):
            out.append(line)
    return "\n".join(out)


INLINED_NOTE = ("# FlagPerf's values from the modules it star-imports (their comments and code are "
                "not carried)")
ONE_LINE_VALUE = re.compile(r"^[A-Za-z_]\w*(\s*:\s*[A-Za-z_][\w\[\], ]*)?\s*=(?!=)")


def _values_only(text: str) -> list[str]:
    """The one-line top-level assignments of an inlined module: its values are facts; its
    comments and code (FlagPerf's helper functions) are FlagPerf's and stay there."""
    return [line for line in text.splitlines() if ONE_LINE_VALUE.match(line)]


def _requirements(src: Source, path: str, out: Path, same_framework: bool, done: Written) -> None:
    text = src.text(path)
    if not text.strip():
        return
    if not same_framework:
        done.not_carried.append(f"`{path}` ({', '.join(text.split())}): packages for FlagPerf's "
                                "own implementation, which chipperf's torch-native case does not run")
    elif all(line.startswith("#") or not line.strip() for line in requirement_lines(text)):
        done.not_carried.append(f"`{path}` ({', '.join(text.split())}): only packages the vendor "
                                "image provides (a framework build for FlagPerf's older image)")
    elif not out.exists():
        _write(out, [src.header(path), *requirement_lines(text)])


def _why_not(name: str, fam: str, framework: str) -> str:
    if name.endswith(".json") or name.endswith(".sh"):
        return f"FlagPerf's {framework} launch settings; chipperf's {fam} case does not read it"
    return "code of FlagPerf's or the vendor's (a training script, kernels, layers); not carried"


# ---------------------------------------------------------------- fitting to chipperf's reader

PROBLEM_AT = re.compile(r"(/\S+\.py):(\d+): (.*)")


def fit_configs(done: Written, catalogue: Catalogue) -> None:
    """Comment out each line of the written configs that chipperf's vendor-config reader
    refuses, saying why; a config still refused after that is removed and listed."""
    for name in list(done.configs):
        path = done.target / "config" / name
        problems: tuple[str, ...] = ()
        for _ in range(5):
            problems = _config_problems(done, path, catalogue)
            located = [m for m in map(PROBLEM_AT.search, problems) if m]
            if not problems or not located:
                break
            for match in located:
                _comment_out(Path(match.group(1)), int(match.group(2)), _short(match.group(3)))
        if problems:
            path.unlink()
            done.configs.remove(name)
            done.not_carried.append(f"`config/{name}`: chipperf cannot read it ({problems[0]})")


def _config_problems(done: Written, path: Path, catalogue: Catalogue) -> tuple[str, ...]:
    model, fam = done.target.name.rsplit("-", 1)
    _, nnodes, nproc = CONFIG.match(path.name).groups()  # type: ignore[union-attr]
    case_dir = catalogue.cases[(model, fam)]
    return check_vendor_config(case_dir / "config", path, f"{model}:{fam}", (RUNTIME.parent,),
                               int(nnodes) * int(nproc)).problems


def _short(problem: str) -> str:
    if "which this case does not have" in problem:
        return "no such parameter in chipperf's case"
    if "needs real execution" in problem:
        return "code, not a value: chipperf reads configs as data"
    if "which is not set above this line" in problem:
        return "uses a value not carried above"
    return problem[:120]


def _comment_out(path: Path, number: int, why: str) -> None:
    """Line ``number`` (1-based) of ``path``, and the block it opens, as comments."""
    lines = path.read_text().splitlines()
    first = lines[number - 1]
    if first.lstrip().startswith("#"):
        return
    end = number
    if first.rstrip().endswith((":", "(", "[", "{", "\\")):
        indent = len(first) - len(first.lstrip())
        while end < len(lines) and (not lines[end].strip() or
                                    len(lines[end]) - len(lines[end].lstrip()) > indent or
                                    lines[end].lstrip()[:1] in ")]}"):
            end += 1
    lines[number - 1:end] = [f"# not carried ({why}): {line}" if line.strip() else line
                             for line in lines[number - 1:end]]
    path.write_text("\n".join(lines) + "\n")


def _write(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines).rstrip() + "\n")


def main(git_dir: Path) -> int:
    catalogue = Catalogue.scan(TRAINING)
    commit = subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    src = Source(git_dir, commit)
    for vendor in VENDORS:
        written: dict[Path, Written] = {}
        for folder in sorted(src.folders(vendor)):
            case = target_case(folder, catalogue)
            if case is None:
                print(f"{vendor}/{folder}: no chipperf case runs it")
                continue
            target = TRAINING / vendor / f"{case[0]}-{case[1]}"
            written[target] = write_case(src, vendor, folder, *case, written.get(target))
        for done in written.values():
            fit_configs(done, catalogue)
            print(f"{vendor}: {done.target.name} <- {', '.join(done.source_folders)}: "
                  f"{', '.join(done.configs) or 'no new config'}")
            _readme(done, vendor, commit)
    return 0


MARK = "## From FlagPerf's folder"


def _readme(done: Written, vendor: str, commit: str) -> None:
    readme = done.target / "README.md"
    if readme.exists() and "FlagPerf's folder" in readme.read_text():   # said already
        return
    old = readme.read_text().rstrip() + "\n\n" if readme.exists() else _title(done, vendor)
    readme.write_text(old + "\n".join(_section(done, commit)) + "\n")


def _title(done: Written, vendor: str) -> str:
    model, fam = done.target.name.rsplit("-", 1)
    lines = [f"# {done.target.name} on {vendor}", "",
             f"**Not run on {vendor} hardware by chipperf**: no such machine has been available; "
             "these configs carry FlagPerf's values as FlagPerf sets them, and no figure is "
             "claimed for them.", "",
             f"Standard case: `training/benchmarks/{model}/{fam}/`. Image: the vendor's `{fam}` "
             "folder under `../docker_image/` (its BASE_IMAGE: ../README.md).", ""]
    fam_of = family(done.framework)
    if fam_of != fam:
        lines += [f"FlagPerf runs this model with {FLAGPERF_IMPLEMENTATIONS[fam_of]} "
                  f"(`{done.framework}`); chipperf plans FlagPerf's key as its torch-native "
                  f"`{fam}` case and says so in the plan and the result (docs/flagperf-names.md): "
                  "the figures are not comparable with FlagPerf's.", ""]
    return "\n".join(lines) + "\n"


def _section(done: Written, commit: str) -> list[str]:
    sources = ", ".join(f"`{f}/`" for f in done.source_folders)
    lines = [MARK, "", f"Source: FlagOpen/FlagPerf@{commit} {sources} (written by "
             "scripts/flagperf_vendor_cases.py; each file's first line names its source).", ""]
    if done.configs:
        lines.append("FlagPerf's configs: " + ", ".join(f"`config/{c}`" for c in done.configs) + ".")
    if done.kept_existing:
        lines.append("chipperf's own configs kept where FlagPerf has one of the same name: "
                     + ", ".join(f"`config/{c}`" for c in done.kept_existing) + ".")
    env, req = done.target / "config" / "environment_variables.sh", \
        done.target / "config" / "requirements.txt"
    if env.exists():
        lines.append("`config/environment_variables.sh`: FlagPerf's variables, set in the case "
                     "container; a line chipperf cannot set literally stays as a comment saying why.")
    if req.exists():
        lines.append("`config/requirements.txt`: FlagPerf's packages, installed in the case's "
                     "image layer; those the vendor image provides stay as comments.")
    if done.not_carried:
        lines += ["", "Not carried:", ""] + [f"- {n}" for n in done.not_carried]
    return lines


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
