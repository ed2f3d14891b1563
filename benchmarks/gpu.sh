#!/usr/bin/env bash
# Issue 29's GPU measurements in one command, for a session that is lent a GPU (the first thing
# to run there): the real families' shapes on one full language (the projection gives all 46),
# bf16 and float32, the pll and decoding rows, then the launcher's overhead with torchrun.
# Every table goes to stdout and to $OUT (default benchmarks/gpu-results/) for the README.
#   bash benchmarks/gpu.sh            # about 25 minutes on one H100
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-benchmarks/gpu-results}
py=${PYTHON:-python}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/device.txt"
for dtype in bfloat16 float32; do
    $py benchmarks/probe.py --device cuda --dtype "$dtype" --models mbert --relations all \
        --pll-subjects 2 --decode-subjects 20 | tee "$out/mbert-$dtype.txt"
    $py benchmarks/probe.py --device cuda --dtype "$dtype" --models xlmr-large,gpt2-1b \
        --pll-subjects 1 --decode-subjects 10 | tee "$out/large-$dtype.txt"
done
$py benchmarks/probe_launch.py --device cuda --shape mbert --relations P19,P36,P37,P103,P30 | tee "$out/launch.txt"
