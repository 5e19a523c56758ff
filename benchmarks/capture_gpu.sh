#!/usr/bin/env bash
# The whole capture on the GPU machine, resumable across calls of the device tool: run from the
# repository's root with $OUT the folder that comes back. FlashAttention-4's wheels arrive as two
# parts of one xz (.fa4/fa4part.aa, .fa4/fa4part.ab; ../shared/notes/fa4-wheels.md says why); the
# capture writes outside the working tree (/tmp/cap) so a warm machine keeps its partial folder, and
# every call sends back a tarball of it (partial.tgz) that a later call on a fresh machine carries in
# as .cap/partial.tgz. Usage: benchmarks/capture_gpu.sh SECONDS
set -u
export PYTHONUNBUFFERED=1
LIMIT=${1:-520}
mkdir -p /tmp/fa4site /tmp/cap
if [ ! -d /tmp/fa4site/flash_attn ] && [ -f /tmp/fa4part.aa ] && [ -f .fa4/fa4part.ab ]; then
    cat /tmp/fa4part.aa .fa4/fa4part.ab | xz -d | tar x -C /tmp/fa4site
fi
export PYTHONPATH=/tmp/fa4site:/tmp/fa4site/nvidia_cutlass_dsl/dsl_packages:$PWD
python3 -c "import flash_attn.cute" 2>/dev/null && echo "FA4 importable" || echo "FA4 NOT importable"
if [ -f .cap/partial.tgz ] && [ -z "$(ls -A /tmp/cap)" ]; then tar xzf .cap/partial.tgz -C /tmp/cap; fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
T0=$(date +%s)
timeout -s INT $LIMIT python3 -m gen profile --scenario all --mode inference,train --sweep --resume \
    --out /tmp/cap > $OUT/capture.log 2>&1
echo "capture rc $? after $(( $(date +%s) - T0 )) s"
tail -30 $OUT/capture.log
ls -la /tmp/cap
tar czf $OUT/partial.tgz -C /tmp/cap .
ls -la $OUT
