#!/usr/bin/env bash
# A capture killed with SIGKILL in its middle, then resumed: run on the GPU machine from the
# repository's root, with $OUT a folder for its output and .whl holding the cuDNN frontend wheel
# (the device tool's conventions). Kills a capture of the article's runs and decode's sweep (both
# modes) 75 s in, counts the processes it left behind (the counter pass's ncu program, the
# compile-ahead workers), resumes it and prints what the published set holds. Output of the last
# run: benchmarks/data/resume_gpu_first.log and resume_gpu_second.log (capture_time.md).
export PYTHONUNBUFFERED=1 TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
A="--scenario article,decode --mode inference,train --out $OUT/res --label resume"
python3 -m gen profile $A > $OUT/first.log 2>&1 & P=$!; sleep 75; kill -9 $P; sleep 2
echo "killed after 75 s"; ls $OUT/res/.partial-*/items | wc -l; ps aux | grep "[n]cu_target\|[g]en.capture.precompile" | cut -c1-150; for i in $(seq 1 30); do n=$(ps aux | grep -c "[n]cu_target\|[g]en.capture.precompile"); [ $n = 0 ] && break; sleep 1; done; echo "left behind after $((i+2)) s: $n processes"
T0=$(date +%s); python3 -m gen profile $A --resume > $OUT/second.log 2>&1; echo "RC $? resumed in $(( $(date +%s) - T0 )) s"
grep -v "^  sweep \[" $OUT/second.log | tail -25; ls $OUT/res; python3 -c "import json;d=json.load(open('$OUT/res/nvidia-h200__torch-2.11.0__resume/result.json'));print(len(d['runs']),len(d['sweep']),d['duration_s'],sorted({r.get('captured') for r in d['sweep']}, key=str))"
tail -5 $OUT/first.log
