#!/usr/bin/env bash
# Races two builds of the core's benchmark forward against each other: a shared machine's speed
# drifts within minutes, so two builds are compared in alternating runs, never one after the
# other. Each round runs A, then B (`bench_mha --causal --kernel K --runs 10`, B=8 T=256 D=512
# h=8) and takes the ratio of B's median to A's; the result is the median of the rounds' ratios
# and their range (below 1: B is faster).
# Usage: scripts/race-forward.sh A B [ROUNDS] [KERNEL]   (ROUNDS 8, KERNEL avx2)
#   A, B   two `bench_mha` executables, e.g. a copy of target/release/examples/bench_mha made
#          before a change and the one built after it
# Run it twice with A and B swapped before believing a difference of a few percent.
set -euo pipefail
case ${1:-} in
  -h | --help | "") sed -n '2,10p' "$0"; exit 0 ;;
esac
a=$1 b=$2 rounds=${3:-8} kernel=${4:-avx2}
median() { "$1" --causal --kernel "$kernel" --runs 10 | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'; }
ratios=()
for i in $(seq "$rounds"); do
  ta=$(median "$a")
  tb=$(median "$b")
  ratios+=("$(python3 -c "print(round($tb / $ta, 4))")")
  echo "round $i: A $ta ms, B $tb ms"
done
python3 - "${ratios[@]}" <<'EOF'
import statistics, sys
r = [float(x) for x in sys.argv[1:]]
print(f"B / A: median {statistics.median(r):.4f} over {len(r)} rounds (range {min(r):.4f}-{max(r):.4f})")
EOF
