# From FlagOpen/FlagPerf@1b5a0303 training/cambricon/llava1.5_7b_continuetrain-flagscale/config/config_MLUx4x8.py (values as FlagPerf sets them).
# ruff: noqa
# scale_parent must under FlagPerf/ or data_dir/, otherwise you cannot mount it into baremetal, therefore cannot use shared storage
# not carried (no such parameter in chipperf's case): scale_parent = "/share/project/data_dir"
# not carried (no such parameter in chipperf's case): scale_home = f"{scale_parent}/FlagScale/build/cambricon_MLU/FlagScale"

# this cmd should install scale at <scale_home>. <scale_home> is set by flagperf.training.benchmarks.llava1.5_7b.flagscale.run_pretraining.py
# not carried (no such parameter in chipperf's case): scale_download_cmd = f"cd {scale_parent}"

# NV need nothing because all requirements have been established in base docker image. vendor can do anything related here
# not carried (no such parameter in chipperf's case): scale_install_cmd = ""

# locate energon. the copy from energon_install_path to flagscale/megatron/ is done by flagperf...run_pretraining.py
# not carried (no such parameter in chipperf's case): energon_locate_cmd = r"pip show megatron-energon | grep Location | awk -F: '{print $2}' | xargs"

# not carried (no such parameter in chipperf's case): scale_conf_dir = f"{scale_home}/examples/llava/conf"
# not carried (no such parameter in chipperf's case): configyaml = f"{scale_conf_dir}/config.yaml"
# not carried (no such parameter in chipperf's case): trainyaml = f"{scale_conf_dir}/train/train_llava1.5_7b.yaml"
# not carried (no such parameter in chipperf's case): datasetyaml = f"{scale_home}/megatron/examples/multimodal/pretrain_dataset.yaml"
# not carried (no such parameter in chipperf's case): prompt = f"{scale_home}/megatron/examples/multimodal/manual_prompts.json"

# not carried (no such parameter in chipperf's case): cmds = {}
# flagscale's requirements
# not carried (no such parameter in chipperf's case): flagscale_chip_type = "MLU"
# not carried (no such parameter in chipperf's case): flagscale_ssh_port = 55623

# 请在Flagperf目录下，创建MLU_FP16_FLOPS.py，
# 文件包含MLU硬件算力值，示例如下：
# MLU_FP16_FLOPS=1.0
# not carried (no such parameter in chipperf's case): FLOPS_DIR='../../../../'
# not carried (an import: FlagPerf's modules are not in chipperf's case): import sys
# not carried (code, not a value: chipperf reads configs as data): sys.path.append(FLOPS_DIR)
# not carried (an import: FlagPerf's modules are not in chipperf's case): from MLU_FP16_FLOPS import MLU_FP16_FLOPS
# not carried (code, not a value: chipperf reads configs as data): flops = float(MLU_FP16_FLOPS)

# for llava's algorithm
# not carried (no such parameter in chipperf's case): steps = 5000
