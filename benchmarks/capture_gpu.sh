#!/usr/bin/env bash
# The whole capture on the GPU machine, resumable across calls of the device tool: run from the
# repository's root with $OUT the folder that comes back.
#
# FlashAttention-4's wheels (and the cuDNN frontend's) arrive as parts of one xz, a part a call
# (each call carries the working tree too, 64 MiB in all: ../shared/notes/fa4-wheels.md); each part
# carried in .fa4/ is kept in /tmp/fa4parts while the machine stays warm, and the parts are unpacked
# once .fa4/fa4.sha256 matches their concatenation. The capture writes outside the working tree
# (CAPDIR, default /tmp/cap) so a warm machine keeps its partial folder, and every call sends back
# its log and a tarball of it ($OUT/<folder name>.log and .tgz, e.g. cap.tgz) that a later call on a
# fresh machine carries in as .cap/<folder name>.tgz. Two CAPDIRs let one call make two captures,
# one after the other, on one machine.
# Usage: benchmarks/capture_gpu.sh stash            (keep the carried part, nothing else)
#        benchmarks/capture_gpu.sh SECONDS [ARGS]   (profile ARGS, default the whole capture)
set -u
export PYTHONUNBUFFERED=1
CAPDIR=${CAPDIR:-/tmp/cap}
NAME=$(basename "$CAPDIR")
mkdir -p /tmp/fa4site "$CAPDIR" /tmp/fa4parts
[ -d .fa4 ] && cp -n .fa4/fa4part.* .fa4/fa4.sha256 /tmp/fa4parts/ 2>/dev/null
ls -la /tmp/fa4parts
if [ ! -d /tmp/fa4site/flash_attn ] && [ -f /tmp/fa4parts/fa4.sha256 ]; then
    if [ "$(cat /tmp/fa4parts/fa4part.* | sha256sum | cut -d' ' -f1)" = "$(cat /tmp/fa4parts/fa4.sha256)" ]; then
        cat /tmp/fa4parts/fa4part.* | xz -d | tar x -C /tmp/fa4site && echo "FA4 wheels unpacked"
    else
        echo "FA4 parts incomplete"
    fi
fi
for w in .fa4/*.whl; do [ -f "$w" ] && python3 -m zipfile -e "$w" /tmp/fa4site && echo "unzipped $w"; done
[ "${1:-}" = "stash" ] && exit 0
LIMIT=${1:-520}
shift || true
ARGS=${*:-"--scenario all --mode inference,train --sweep"}
export PYTHONPATH=/tmp/fa4site:/tmp/fa4site/nvidia_cutlass_dsl/dsl_packages:$PWD
python3 -c "import flash_attn.cute" 2>/dev/null && echo "FA4 importable" || echo "FA4 NOT importable"
python3 -c "import cudnn; print('cudnn frontend', cudnn.backend_version())" 2>&1 | tail -1
if [ -f ".cap/$NAME.tgz" ] && [ -z "$(ls -A "$CAPDIR")" ]; then tar xzf ".cap/$NAME.tgz" -C "$CAPDIR"; fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
T0=$(date +%s)
# shellcheck disable=SC2086
timeout -s INT "$LIMIT" python3 -m gen profile $ARGS --resume --out "$CAPDIR" > "$OUT/$NAME.log" 2>&1
echo "capture rc $? after $(( $(date +%s) - T0 )) s"
tail -30 "$OUT/$NAME.log"
ls -la "$CAPDIR"
tar czf "$OUT/$NAME.tgz" -C "$CAPDIR" .
ls -la "$OUT"
