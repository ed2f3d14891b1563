#!/usr/bin/env bash
# Issue 29's GPU measurements in one command, for a session that is lent a GPU (the first thing
# to run there): the real families' shapes on one full language (the projection gives all 46),
# bf16 and float32, the pll and decoding rows, then the launcher's overhead with torchrun.
# Every table goes to stdout and to $OUT (default benchmarks/gpu-results/) for the docs.
#   bash benchmarks/gpu.sh            # the whole set (not yet timed end to end on a GPU)
#   bash benchmarks/gpu.sh --lease    # what fits a 10-minute device lease: each step under a
#                                     # time limit, so a slow step costs its own row, not the rest
# DATA=... points at ../shared/data or a copy of its es folders (the device machine has no ../shared).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-benchmarks/gpu-results}
py=${PYTHON:-python}
data=${DATA:-../shared/data}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/device.txt"
$py -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' | tee -a "$out/device.txt"
step() {  # step SECONDS FILE ARGS...: one benchmark, its table kept even when a later one fails
    local limit=$1 file=$2
    shift 2
    timeout "$limit" "$py" "$@" --data "$data" 2>&1 | tee "$out/$file" || echo "($file: stopped or failed, exit ${PIPESTATUS[0]})" | tee -a "$out/$file"
}
if [[ ${1:-} == --lease ]]; then
    step 210 mbert-bfloat16.txt benchmarks/probe.py --device cuda --dtype bfloat16 --models mbert --relations all \
        --pll-subjects 2 --decode-subjects 20
    step 150 large-bfloat16.txt benchmarks/probe.py --device cuda --dtype bfloat16 --models xlmr-large,gpt2-1b \
        --pll-subjects 1 --decode-subjects 10
    step 90 mbert-float32.txt benchmarks/probe.py --device cuda --dtype float32 --models mbert \
        --relations P19,P36,P37,P103,P30 --pll-subjects 1 --decode-subjects 10
    step 60 launch.txt benchmarks/probe_launch.py --device cuda --shape mbert --relations P19,P36,P37,P103,P30 \
        --processes 1
    exit 0
fi
for dtype in bfloat16 float32; do
    step 3600 "mbert-$dtype.txt" benchmarks/probe.py --device cuda --dtype "$dtype" --models mbert --relations all \
        --pll-subjects 2 --decode-subjects 20
    step 3600 "large-$dtype.txt" benchmarks/probe.py --device cuda --dtype "$dtype" --models xlmr-large,gpt2-1b \
        --pll-subjects 1 --decode-subjects 10
done
step 1800 launch.txt benchmarks/probe_launch.py --device cuda --shape mbert --relations P19,P36,P37,P103,P30 --processes 1
