"""Imported at start-up by the case processes that tests start with ``caserun.case_env``
and by the LLM layout tests' ranks (``layoutsteps``): this folder is on their PYTHONPATH, so
the process sees the packages the cpu images have, not the test venv's extras for preparing
data.

scikit-learn is in the venv for ``prepare_digits.py`` and lm-eval's metrics only; the cpu
images have none (training/cpu/docker_image/*/requirements.txt), and no case imports it. But
transformers imports ``sklearn.metrics`` whenever scikit-learn is installed
(``transformers.generation.candidate_generator``, for assisted generation): 0.85 s of CPU in
every rank that imports a transformers model (of ~4.8 s of imports in an LLM rank, measured
with ``python -X importtime``), which the product's ranks in the images never pay. ``None``
in ``sys.modules`` makes ``importlib.util.find_spec("sklearn")`` None (transformers' test)
and ``import sklearn`` an ImportError, as in the images."""

import sys

sys.modules.setdefault("sklearn", None)  # type: ignore[assignment]
