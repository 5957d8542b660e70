# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/llava1.5_7b_continuetrain-flagscale/config/config_R300px4x8.py (values as FlagPerf sets them).
# ruff: noqa
# scale_parent must under FlagPerf/ or data_dir/, otherwise you cannot mount it into baremetal, therefore cannot use shared storage
#scale_parent = "/share"
# not carried (no such parameter in chipperf's case): scale_parent = "/share/project/PUBLIC/data/llava1.5-7b"
# not carried (no such parameter in chipperf's case): scale_home = f"{scale_parent}/FlagScale/build/kunlunxin_R300p/FlagScale"

# this cmd should install scale at <scale_home>. <scale_home> is set by flagperf.training.benchmarks.llava1.5_7b.flagscale.run_pretraining.py
#scale_download_cmd = f"cd {scale_parent}; git clone https://github.com/FlagOpen/FlagScale.git; cd FlagScale; git checkout 085811f"
# not carried (no such parameter in chipperf's case): scale_download_cmd = f"cd {scale_home}"

# NV need nothing because all requirements have been established in base docker image. vendor can do anything related here
# not carried (no such parameter in chipperf's case): scale_install_cmd = ""

# locate energon. the copy from energon_install_path to flagscale/megatron/ is done by flagperf...run_pretraining.py
# not carried (no such parameter in chipperf's case): energon_locate_cmd = r"pip show megatron-energon | grep Location | awk -F: '{print $2}' | xargs"

# not carried (no such parameter in chipperf's case): scale_conf_dir = f"{scale_home}/examples/llava/conf"
# not carried (no such parameter in chipperf's case): configyaml = f"{scale_conf_dir}/config.yaml"
# not carried (no such parameter in chipperf's case): trainyaml = f"{scale_conf_dir}/train/train_llava1.5_7b.yaml"
# not carried (no such parameter in chipperf's case): datasetyaml = f"{scale_home}/megatron/examples/multimodal/pretrain_dataset.yaml"
# not carried (no such parameter in chipperf's case): prompt = f"{scale_home}/megatron/examples/multimodal/manual_prompts.json"

# not carried (no such parameter in chipperf's case): cmds = {"before_start": "source ~/.bashrc"}
# flagscale's requirements
# not carried (no such parameter in chipperf's case): flagscale_chip_type = "R300p"
# not carried (no such parameter in chipperf's case): flagscale_ssh_port = 4323
# not carried (no such parameter in chipperf's case): flops = 999

# for llava's algorithm
# not carried (no such parameter in chipperf's case): steps = 5000
