"""Pure planning: configs + case catalogue -> what runs where.

Which process gets which node rank, port, container name, env, command and result path is
decided here, from data alone: no host, clock or docker is touched (the run id is passed in).
``check`` lists every problem at once. The parts: ``model`` (the plan as frozen data),
``case`` (what the plan reads of one case), ``checks`` (every problem, at once) and ``make``
(the plan itself).
"""

from chipperf.plan.case import RUNTIME, case_knobs, image_choice, inference_sets, override_args, vendor_config
from chipperf.plan.checks import MIN_RESULT_ROOT_FREE, Checked, check, checked, result_root_problems
from chipperf.plan.make import device_env, make_plan
from chipperf.plan.model import (
    CasePlan,
    NodePlan,
    RoundPlan,
    RunPlan,
    Upload,
    case_dir_name,
    case_hosts,
    host_label,
    host_work_dir,
)

__all__ = ["MIN_RESULT_ROOT_FREE", "RUNTIME", "CasePlan", "Checked", "NodePlan", "RoundPlan", "RunPlan",
           "Upload", "case_dir_name", "case_hosts", "case_knobs", "check", "checked", "device_env",
           "host_label", "host_work_dir", "image_choice", "inference_sets", "make_plan",
           "override_args", "result_root_problems", "vendor_config"]
