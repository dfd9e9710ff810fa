#!/usr/bin/env bash
# Races the course's own `cargo test` (or, with --first-grade, a student's first `cargo xtask
# grade`) on two commits: a shared machine's speed drifts within minutes (more from hour to
# hour), so the two trees run alternately, never one after the other. Each commit is cloned once
# (its own folder, dependencies fetched); each round empties both target folders and runs
# `cargo test --locked -q` (or `cargo xtask grade`) in each, the order swapped every other round.
# Prints each run's wall time and CPU time (user + system: steadier than wall time on a shared
# machine), then the medians. A run that fails is reported and still timed.
# Usage: scripts/race-tests.sh [--first-grade] A B [ROUNDS]   (ROUNDS 3; A, B: commits, e.g.
# HEAD~1 HEAD). A round takes two fresh `cargo test` runs (minutes each).
set -euo pipefail
case ${1:-} in
  -h | --help | "") sed -n '2,11p' "$0"; exit 0 ;;
esac
first_grade=false
if [ "$1" = --first-grade ]; then
  first_grade=true
  shift
fi
src=$(git -C "$(dirname "${BASH_SOURCE[0]}")/.." rev-parse --show-toplevel)
a=$(git -C "$src" rev-parse --verify "$1^{commit}")
b=$(git -C "$src" rev-parse --verify "$2^{commit}")
rounds=${3:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NO_COLOR=1
unset RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_TARGET_DIR
for side in A B; do
  commit=$a
  [ "$side" = B ] && commit=$b
  git clone -q "$src" "$dir/$side"
  git -C "$dir/$side" checkout -q "$commit"
  (cd "$dir/$side" && cargo fetch --locked -q)
done

# Runs `cargo test` in clone $1 from an empty target folder; prints "wall cpu".
run() {
  rm -rf "$dir/$1/target"
  # This shell's own CPU time and its waited-for children's (cargo and all it ran), in ticks.
  local t0 t1 cpu0 cpu1 me=$BASHPID
  cpu0=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$me/stat")
  t0=$(date +%s.%N)
  if $first_grade; then
    # Exit status 1 is a grade with unfinished exercises (the stubs): expected.
    local status=0
    (cd "$dir/$1" && cargo xtask grade >/dev/null 2>&1) || status=$?
    [ "$status" -le 1 ] || echo "race-tests: cargo xtask grade FAILED ($status) in $1" >&2
  else
    (cd "$dir/$1" && cargo test --locked -q >/dev/null 2>&1) || echo "race-tests: cargo test FAILED in $1" >&2
  fi
  t1=$(date +%s.%N)
  cpu1=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$me/stat")
  awk -v a="$t0" -v b="$t1" -v c="$cpu0" -v d="$cpu1" -v hz="$(getconf CLK_TCK)" \
    'BEGIN {printf "%.1f %.1f\n", b - a, (d - c) / hz}'
}

results=()
for i in $(seq "$rounds"); do
  order="A B"
  [ $((i % 2)) -eq 0 ] && order="B A"
  for side in $order; do
    read -r wall cpu < <(run "$side")
    echo "round $i: $side ${wall} s wall, ${cpu} s CPU"
    results+=("$side $wall $cpu")
  done
done
python3 - "${results[@]}" <<'EOF'
import statistics, sys
rows = [r.split() for r in sys.argv[1:]]
for side in "AB":
    wall = [float(w) for s, w, _ in rows if s == side]
    cpu = [float(c) for s, _, c in rows if s == side]
    print(f"{side}: wall median {statistics.median(wall):.1f} s ({min(wall):.1f}-{max(wall):.1f}), "
          f"CPU median {statistics.median(cpu):.1f} s ({min(cpu):.1f}-{max(cpu):.1f})")
EOF
