# Kunlunxin's variables for resnet50 on R300, as FlagPerf sets them: FlagOpen/FlagPerf@66eb17e4
# training/kunlunxin/resnet50-pytorch/config/environment_variables.sh (values carried as given;
# not run on R300 by chipperf). chipperf reads this file at plan time and sets the variables in
# the case container (docs/adding-a-vendor.md, "A vendor's adaptation").
export BKCL_PCIE_RING=1
export BKCL_TIMEOUT=1800
export XMLIR_D_XPU_L3_SIZE=66060288
export XDNN_CONV_GEMM_DTYPE=int16
