#!/usr/bin/env bash
# Issue 36 item 5 on a lent GPU machine (16 CPU cores, Python 3.12, no network): seeds 3-9 of
# the DNN Table 1 (frozen and fixed head), Table 2's PUDD and reference rows, then VFDT, each
# merged with --add into a copy of the committed report, each with its own results store;
# stopped at $T seconds and everything tarred to $OUT/seeds.tar.gz.
#
# Prepare here (both folders ignored by git through .git/info/exclude):
#   .whl/      river==0.26.1, pandas==2.3.3, pytz, tzdata wheels for cp312 manylinux x86_64
#              (pip download --no-deps --only-binary=:all: --python-version 3.12 ...)
#   .devdata/datasets/  copies of ../shared/datasets/{elec2,powersupply,airline}
# and call the device tool: run(command="bash scripts/device_seeds.sh", carry=[".whl",
# ".devdata"], timeout_s=600). A store from an earlier call, passed back with --store, makes
# a re-run compute only the missing runs (the session of 2026-11-28 kept its stores in
# /work/seed-runs/dev2/store-{dnn,fixed,t2}: 220 + 215 + 56 runs).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PUDD_DATA_DIR=$PWD/.devdata/datasets OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 CUDA_VISIBLE_DEVICES= PYTHONUNBUFFERED=1
nproc; python3 -c "import pytz, tzdata" || exit 3; python3 -c "import sys,numpy,pandas,scipy,sklearn,river,pyarrow,torch;print(sys.version, numpy.__version__,pandas.__version__,scipy.__version__,sklearn.__version__,river.__version__,pyarrow.__version__,torch.__version__)"
python3 -m pudd_core reproduce --help > /dev/null || exit 4
W=/tmp/w; mkdir -p $W/vfdt $W/dnn $W/fixed $W/t2
cp results/table1_vfdt.md results/table1_vfdt.csv $W/vfdt/
cp results/table1_dnn.md results/table1_dnn.csv $W/dnn/
cp results/table1_dnn_fixed_head.md $W/fixed/table1_dnn.md; cp results/table1_dnn_fixed_head.csv $W/fixed/table1_dnn.csv
cp results/table2_dnn-ensemble.md results/table2_dnn-ensemble.csv $W/t2/
D=sea0,sea10,sea20,sine,mixed,elec2,powersupply
R="python3 -m pudd_core reproduce --seeds 3-9 --add"
T=${T:-470}
start=$(date +%s)
timeout $T $R --table 1 --classifier dnn --detectors pudd-1,pudd-3,pudd-5 --datasets $D --reproduce-frozen-head --n-jobs 5 --store $W/store-dnn --out $W/dnn > $W/dnn.log 2>&1 & p1=$!
timeout $T $R --table 1 --classifier dnn --detectors pudd-1,pudd-3,pudd-5 --datasets $D --n-jobs 5 --store $W/store-fixed --out $W/fixed > $W/fixed.log 2>&1 & p2=$!
timeout $T $R --table 2 --detectors pudd-1,pudd-3,pudd-5,none,oracle --n-jobs 6 --store $W/store-t2 --out $W/t2 > $W/t2.log 2>&1 & p3=$!
wait $p1 $p2
left=$(( T - ($(date +%s) - start) ))
echo "dnn done at $(( $(date +%s) - start )) s; vfdt gets $left s"
[ $left -gt 30 ] && timeout $left $R --table 1 --classifier vfdt --datasets $D --n-jobs 8 --store $W/store-vfdt --out $W/vfdt > $W/vfdt.log 2>&1
wait
for f in dnn fixed t2 vfdt; do echo "== $f"; tr "\r" "\n" < $W/$f.log 2>/dev/null | tail -4; ls $W/store-$f 2>/dev/null | wc -l; done
tar czf $OUT/seeds.tar.gz -C $W .
