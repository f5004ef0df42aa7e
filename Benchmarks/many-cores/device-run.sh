#!/usr/bin/env bash
# mandel's process and per-tile costs at 16 cores, before and after, and the many-cores chapter's script,
# on a machine without Swift. Run from the repository root with $OUT an output folder.
# Expects in .devrun/ (see prepare-device): mandel-before.xz (commit cdc76c0, the 16-core data's own
# build) and mandel-after.xz, both `swift build -c release --static-swift-stdlib` for x86-64-v3,
# stripped; lib/ with libpng16, libmpfr, libgmp, libz; commit (the after build's commit).
# SMALL=1 shrinks every render (a rehearsal on a small machine). Steps skip once DEADLINE seconds
# (default 480) have passed, so that what ran comes back. STEPS lists the steps to run (default
# "1 2 3 4 5"; step 6, the chapter's sweep over workers alone with the after build, runs only when
# named).
set -u
D=$PWD/.devrun
export LD_LIBRARY_PATH=$D/lib
for b in before after; do xz -d -k -f "$D/mandel-$b.xz" && chmod +x "$D/mandel-$b"; done
X=$(mktemp -d)
exec > >(tee "$OUT/log.txt") 2>&1
started=$SECONDS
deadline=${DEADLINE:-480}
step() { echo; echo "=== $* ($(date +%T), $((SECONDS - started)) s, load $(cut -d' ' -f1 /proc/loadavg))"; }
left() { [ $((SECONDS - started)) -lt "$1" ]; }
t() { local lim=$1; shift; timeout -k 5 "$lim" "$@"; echo "[rc=$?]"; }
small=${SMALL:-}
steps=" ${STEPS:-1 2 3 4 5} "
wanted() { [[ "$steps" == *" $1 "* ]]; }
one=2800x2800; I1=18000; mid=3200x2400; tiny=800x600
[ -n "$small" ] && { one=700x700; I1=3000; mid=800x600; tiny=400x300; }
V="--center -0.7453,0.1127 --zoom 180 --iterations 1500"
W=$(nproc)

step machine
nproc; uname -r
lscpu | grep -E 'Model name|Socket|Core|Thread|NUMA|L3' | cut -c1-200
grep -o -w -E 'avx512f|avx2|fma' /proc/cpuinfo | sort | uniq -c
cat /sys/fs/cgroup/cpu.max 2>/dev/null
for b in before after; do echo "$b: $("$D/mandel-$b" --version)"; done

if wanted 1; then
    step "1 process against gcd at $W workers, $one gray, $I1 iterations (about a second), before and after, 5 interleaved rounds"
    for r in 1 2 3 4 5; do
        for b in before after; do
            for s in gcd process; do
                left "$deadline" || break
                a=$(date +%s.%N)
                timeout -k 5 60 "$D/mandel-$b" render --size $one --center -0.7453,0.1127 --zoom 180 \
                    --iterations $I1 --color gray --workers "$W" --strategy $s -o "$X/one.png" --json \
                    > "$X/R-$b-$s-$r.json"
                rc=$?
                e=$(date +%s.%N)
                echo "R $b $s $r $rc $(awk -v a="$a" -v e="$e" 'BEGIN {print e - a}')" | tee -a "$X/whole.txt"
            done
        done
    done
fi

if wanted 2; then
    step "2 process against gcd at $W and $((2 * W)) workers, $mid, before and after"
    for w in "$W" $((2 * W)); do
        for b in before after; do
            left "$deadline" && t 90 "$D/mandel-$b" compare --size $mid $V --workers "$w" --strategies gcd,process \
                --runs 3 --warmup 1 --json "$X/Q-$b-$w-1.json"
        done
    done
fi

if wanted 3; then
    step "3 tiles 4..64 at $W workers, $tiny, before and after, 2 interleaved rounds"
    for r in 1 2; do
        for b in before after; do
            left "$deadline" && t 90 "$D/mandel-$b" sweep --size $tiny $V --workers "$W" --tile 4,8,16,64 \
                --strategies serial,thread,operation,gcd,apply,tasks,pthread,process --runs 3 --warmup 1 \
                --json "$X/T-$b-$r.json"
        done
    done
fi
if wanted 1 || wanted 2 || wanted 3; then tar czf "$OUT/exports.tar.gz" -C "$X" --exclude one.png .; fi

if wanted 4 && left $((deadline - 150)); then
    step "4 docs/measure/measure many-cores, the after build"
    MANDEL_BINARY=$D/mandel-after MANDEL_COMMIT=$(cat "$D/commit") \
        MANDEL_SWIFT="Swift 6.3.1, --static-swift-stdlib, -march=x86-64-v3" \
        timeout -k 5 $((deadline - (SECONDS - started))) python3 docs/measure/measure many-cores
    echo "[rc=$?]"
    tar czf "$OUT/measure.tar.gz" docs/results/many-cores Benchmarks/results/many-cores
fi

if wanted 5 && left $((deadline - 40)); then
    step "5 the four-lane build at the Benchmarks Game, N = 16000, $W workers, against peak256.c on $W threads"
    best=0
    for k in 3 4 6; do
        gcc -O3 -march=x86-64-v3 -ffp-contract=off -fopenmp -DK=$k scripts/peak256.c -o "$X/peak-$k" || continue
        rate=$(OMP_NUM_THREADS=$W "$X/peak-$k" | awk '{print $3}')
        echo "peak256 K=$k: $rate G"
        if awk -v r="$rate" -v b="$best" 'BEGIN {exit !(r > b)}'; then best=$rate; cp "$X/peak-$k" "$X/peak"; fi
    done
    "$D/mandel-after" render --preset benchmarks-game --size 16000 --format pbm --workers "$W" --json -o "$X/bg.pbm" \
        | python3 -c 'import json, sys; print("useful", json.load(sys.stdin)["total_iterations"])'
    rm -f "$X/bg.pbm"
    for r in 1 2 3; do
        for s in gcd thread apply pthread; do
            a=$(date +%s.%N)
            timeout -k 5 30 "$D/mandel-after" render --preset benchmarks-game --size 16000 --format pbm \
                --workers "$W" --strategy $s -o - > /dev/null
            e=$(date +%s.%N)
            echo "bg $s $r $(awk -v a="$a" -v e="$e" 'BEGIN {print e - a}')"
        done
        [ -x "$X/peak" ] && echo "peak $(OMP_NUM_THREADS=$W "$X/peak" | awk '{print $3}')"
    done
fi

if wanted 6; then
    step "6 the chapter's sweep over workers alone, 5 runs, the after build (its points interleaved)"
    list=$(printf '%s\n' 1 2 4 8 "$W" $((2 * W)) | sort -n | uniq | paste -sd,)
    t 300 "$D/mandel-after" sweep --size $mid $V --workers "$list" --runs 5 --warmup 1 --json "$X/W.json"
    tar czf "$OUT/sweep.tar.gz" -C "$X" W.json
fi
step done
